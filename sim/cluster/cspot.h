/*
 * cspot.h - a cluster's spot pool as the spec gives it (the "spot" object,
 * pp_cspot in cspec.h) and the availability trace it may name.
 *
 * Spec keys: "spot": {"nodes": N, "notice_s": S, "usd_per_gpu_hour": P,
 * and either "trace": FILE or "reclaims_per_node_hour": R with
 * "replacement_s": T, "source": "..."}. notice_s is the warning a reclaim
 * gives: AWS EC2 sends its Spot Instance interruption notice two minutes
 * before it stops or terminates the instance
 * (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html);
 * Compute Engine ends a preempted Spot or preemptible VM 30 s after its
 * notice (https://cloud.google.com/compute/docs/instances/spot, "Preemption
 * process"). No default is assumed: the spec states it.
 *
 * Trace formats (a path relative to the spec file):
 *   CSV   "t_s,available_nodes": rows by ascending time, the first at 0;
 *         from each row's time on, that many of the pool's nodes exist
 *         (podplan's own plain format).
 *   JSON  SkyPilot's spot-traces format (skypilot-org/spot-traces, the
 *         data of "Can't Be Late", NSDI'24): {"metadata": {"gap_seconds":
 *         300}, "data": [available instances at each tick]}; tick i is at
 *         i x gap_seconds.
 * After the last point the availability stays as it is.
 *
 * Errors: PP_EINPUT naming the file and the JSON path or row, what was
 * found and what was expected.
 */
#ifndef PP_CSPOT_H
#define PP_CSPOT_H

#include "cluster/cspec.h"
#include "core/jdoc.h"

/* Read root's "spot" object, if any, into sp (zeroed first). spec_name:
 * the spec file, whose folder a relative trace path starts from. */
int pp_cspot_parse(pp_cspot *sp, const pp_jdoc *d, const cJSON *root, const char *spec_name,
		   pp_err *err);
/* A trace from text (CSV or SkyPilot JSON, told by its first byte) into
 * sp's trace arrays; name for messages. */
int pp_cspot_trace_parse(pp_cspot *sp, const char *name, const char *text, size_t len,
			 pp_err *err);
void pp_cspot_release(pp_cspot *sp);
void pp_cspot_copy(pp_cspot *dst, const pp_cspot *src);

#endif
