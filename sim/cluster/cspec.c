/* cspec.c - see cspec.h. */
#include "cluster/cspec.h"
#include "cluster/cmig.h"
#include "cluster/cspot.h"
#include "core/jdoc.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const pp_csched_names[2] = {"builtin", "backfill"};
const char *const pp_cplace_names[3] = {"pack", "spread", "fgd"};
const char *const pp_ctopo_names[3] = {"none", "preferred", "required"};

#define DAY_S 86400.0

static int num(const pp_jdoc *d, const cJSON *o, const char *p, const char *k, bool req,
	       double lo, double hi, double *out, pp_err *err)
{
	return pp_jget_num(d, o, p, k, req, lo, hi, out, NULL, err);
}

static int inum(const pp_jdoc *d, const cJSON *o, const char *p, const char *k, bool req,
		int64_t lo, int64_t hi, int *out, pp_err *err)
{
	int64_t v = *out;
	int rc = pp_jget_int(d, o, p, k, req, lo, hi, &v, NULL, err);
	if (!rc)
		*out = (int)v;
	return rc;
}

static int parse_nodes(pp_cspec *s, const pp_jdoc *d, const cJSON *root, pp_err *err)
{
	static const char *const keys[] = {"name", "gpu", "count", "gpus_per_node",
					   "cpus_per_node", "ram_gib", "nics_per_node", "nvme_tb", "mig"};
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "nodes");
	char what[96], p[64];
	if (!arr)
		return pp_jdoc_errf(d, err, "nodes", "missing; expected an array of node types "
				    "({\"count\": 32, \"gpus_per_node\": 8, ...})");
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
		return pp_jdoc_errf(d, err, "nodes", "found %s, expected a non-empty array of node "
				    "types", pp_jdoc_describe(arr, what, sizeof(what)));
	s->ntypes = cJSON_GetArraySize(arr);
	s->types = pp_xcalloc((size_t)s->ntypes, sizeof(*s->types));
	int i = 0, rc;
	const cJSON *o;
	cJSON_ArrayForEach(o, arr)
	{
		pp_cnode_type *t = &s->types[i];
		pp_jpath_idx(p, sizeof(p), "nodes", i);
		if (!cJSON_IsObject(o))
			return pp_jdoc_errf(d, err, p, "found %s, expected an object",
					    pp_jdoc_describe(o, what, sizeof(what)));
		snprintf(t->name, sizeof(t->name), "type%d", i);
		t->gpus_per_node = 8;
		t->cpus_per_node = 0;
		t->nics_per_node = 0;
		double ram_gib = 0, nvme_tb = 0;
		char mig[48] = "";
		if ((rc = pp_jcheck_keys(d, o, p, keys, PP_ARRAY_LEN(keys), err)) ||
		    (rc = pp_jget_str(d, o, p, "name", false, t->name, sizeof(t->name), NULL, err)) ||
		    (rc = pp_jget_str(d, o, p, "gpu", false, t->gpu, sizeof(t->gpu), NULL, err)) ||
		    (rc = inum(d, o, p, "count", true, 1, 1000000, &t->count, err)) ||
		    (rc = inum(d, o, p, "gpus_per_node", false, 1, 72, &t->gpus_per_node, err)) ||
		    (rc = inum(d, o, p, "cpus_per_node", false, 0, 100000, &t->cpus_per_node, err)) ||
		    (rc = num(d, o, p, "ram_gib", false, 0, 1 << 24, &ram_gib, err)) ||
		    (rc = inum(d, o, p, "nics_per_node", false, 0, 64, &t->nics_per_node, err)) ||
		    (rc = num(d, o, p, "nvme_tb", false, 0, 1e4, &nvme_tb, err)) ||
		    (rc = pp_jget_str(d, o, p, "mig", false, mig, sizeof(mig), NULL, err)))
			return rc;
		t->mig = mig[0] ? 1 + pp_mig_gpu(mig) : 0;
		if (mig[0] && !t->mig) {
			char mp[80];
			snprintf(mp, sizeof(mp), "%s.mig", p);
			return pp_jdoc_errf(d, err, mp, "found \"%s\", expected a GPU with MIG "
					    "profiles: %s", mig, pp_mig_gpu_list());
		}
		t->ram_bytes = ram_gib * PP_GIB;
		t->nvme_bytes = nvme_tb * 1e12;
		if (i > 0 && t->gpus_per_node != s->types[0].gpus_per_node)
			return pp_jdoc_errf(d, err, p, "found gpus_per_node %d beside %d in nodes[0]; "
					    "expected one node size for the whole cluster "
					    "(node types may differ in GPU, CPUs, RAM)",
					    t->gpus_per_node, s->types[0].gpus_per_node);
		s->nodes += t->count;
		s->gpus += t->count * t->gpus_per_node;
		if (t->gpus_per_node > s->gpus_per_node)
			s->gpus_per_node = t->gpus_per_node;
		i++;
	}
	if (s->nodes > 1000000)
		return pp_jdoc_errf(d, err, "nodes", "found %d nodes in all, expected at most "
				    "1,000,000", s->nodes);
	return 0;
}

static int parse_queues(pp_cspec *s, const pp_jdoc *d, const cJSON *root, pp_err *err)
{
	static const char *const keys[] = {"name", "nominal_quota_gpus", "borrowing_limit_gpus",
					   "priority"};
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "queues");
	char what[96], p[64];
	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return pp_jdoc_errf(d, err, "queues", "found %s, expected an array of queues",
				    pp_jdoc_describe(arr, what, sizeof(what)));
	s->nqueues = cJSON_GetArraySize(arr);
	s->queues = pp_xcalloc((size_t)s->nqueues + 1, sizeof(*s->queues));
	int i = 0, rc;
	const cJSON *o;
	cJSON_ArrayForEach(o, arr)
	{
		pp_cqueue *q = &s->queues[i];
		pp_jpath_idx(p, sizeof(p), "queues", i);
		if (!cJSON_IsObject(o))
			return pp_jdoc_errf(d, err, p, "found %s, expected an object",
					    pp_jdoc_describe(o, what, sizeof(what)));
		q->nominal_quota_gpus = -1;
		q->borrowing_limit_gpus = -1;
		if ((rc = pp_jcheck_keys(d, o, p, keys, PP_ARRAY_LEN(keys), err)) ||
		    (rc = pp_jget_str(d, o, p, "name", true, q->name, sizeof(q->name), NULL, err)) ||
		    (rc = inum(d, o, p, "nominal_quota_gpus", false, 0, 100000000,
			       &q->nominal_quota_gpus, err)) ||
		    (rc = inum(d, o, p, "borrowing_limit_gpus", false, 0, 100000000,
			       &q->borrowing_limit_gpus, err)) ||
		    (rc = inum(d, o, p, "priority", false, -1000000, 1000000, &q->priority, err)))
			return rc;
		for (int j = 0; j < i; j++)
			if (!strcmp(s->queues[j].name, q->name))
				return pp_jdoc_errf(d, err, p, "found queue \"%s\" a second time; "
						    "expected each name once", q->name);
		i++;
	}
	return 0;
}

static int parse_body(pp_cspec *s, const pp_jdoc *d, pp_err *err)
{
	static const char *const top[] = {"name", "description", "nodes", "nvlink_domain_gpus",
					  "network", "filesystem", "checkpoint", "scheduler",
					  "queues", "reliability", "cost", "seed", "horizon_s",
					  "timeline_points", "source", "spot"};
	static const char *const net_keys[] = {"nodes_per_leaf", "oversubscription"};
	static const char *const fs_keys[] = {"read_GBps", "write_GBps", "metadata_ops_per_s",
					      "source"};
	static const char *const ck_keys[] = {"host_copy_GBps", "source"};
	static const char *const sch_keys[] = {"type", "max_job_test", "placement",
					       "topology_mode", "preempt_mode",
					       "preempt_exempt_time_s", "batch_sched_delay_s",
					       "sched_interval_s", "time_resolution_s"};
	static const char *const rel_keys[] = {"failures_per_1000_node_days",
					       "interruptions_per_1000_node_days", "repair_time_s",
					       "restart_s", "lemon_fraction", "lemon_factor",
					       "max_requeue", "source"};
	static const char *const cost_keys[] = {"usd_per_gpu_hour", "source"};
	static const char *const preempt[] = {"off", "requeue"};
	const cJSON *root = d->root, *o;
	int rc, e;
	bool present;
	if ((rc = pp_jcheck_keys(d, root, "", top, PP_ARRAY_LEN(top), err)) ||
	    (rc = pp_jget_str(d, root, "", "name", false, s->name, sizeof(s->name), NULL, err)) ||
	    (rc = parse_nodes(s, d, root, err)))
		return rc;
	s->nvlink_domain_gpus = s->gpus_per_node;
	if ((rc = inum(d, root, "", "nvlink_domain_gpus", false, 1, 576, &s->nvlink_domain_gpus,
		       err)))
		return rc;
	if (s->nvlink_domain_gpus % s->gpus_per_node)
		return pp_jdoc_errf(d, err, "nvlink_domain_gpus", "found %d, expected a multiple of "
				    "gpus_per_node (%d): a domain holds whole nodes",
				    s->nvlink_domain_gpus, s->gpus_per_node);
	s->nodes_per_leaf = s->nodes;
	s->oversubscription = 1;
	if ((rc = pp_jget_obj(d, root, "", "network", false, &o, err)))
		return rc;
	if (o && ((rc = pp_jcheck_keys(d, o, "network", net_keys, PP_ARRAY_LEN(net_keys), err)) ||
		  (rc = inum(d, o, "network", "nodes_per_leaf", false, 1, 1000000,
			     &s->nodes_per_leaf, err)) ||
		  (rc = num(d, o, "network", "oversubscription", false, 1, 64, &s->oversubscription,
			    err))))
		return rc;
	double rd = INFINITY, wr = INFINITY, meta = NAN, hc = 25;
	if ((rc = pp_jget_obj(d, root, "", "filesystem", false, &o, err)))
		return rc;
	if (o && ((rc = pp_jcheck_keys(d, o, "filesystem", fs_keys, PP_ARRAY_LEN(fs_keys), err)) ||
		  (rc = num(d, o, "filesystem", "read_GBps", true, 1e-3, 1e6, &rd, err)) ||
		  (rc = num(d, o, "filesystem", "write_GBps", true, 1e-3, 1e6, &wr, err)) ||
		  (rc = num(d, o, "filesystem", "metadata_ops_per_s", false, 0, 1e12, &meta, err))))
		return rc;
	s->fs_read_Bps = rd * PP_GB;
	s->fs_write_Bps = wr * PP_GB;
	s->fs_metadata_ops_per_s = meta;
	if ((rc = pp_jget_obj(d, root, "", "checkpoint", false, &o, err)))
		return rc;
	if (o && ((rc = pp_jcheck_keys(d, o, "checkpoint", ck_keys, PP_ARRAY_LEN(ck_keys), err)) ||
		  (rc = num(d, o, "checkpoint", "host_copy_GBps", true, 1e-3, 1e4, &hc, err))))
		return rc;
	s->host_copy_Bps = hc * PP_GB;
	s->sched = PP_CSCHED_BACKFILL;
	s->backfill_max_job_test = 100;
	s->placement = PP_CPLACE_PACK;
	s->topology_mode = PP_CTOPO_PREFERRED;
	s->preempt_exempt_s = 0;
	s->batch_dispatch = false;
	s->batch_sched_delay_s = 0;
	s->sched_interval_s = 60;
	s->time_resolution_s = 0;
	if ((rc = pp_jget_obj(d, root, "", "scheduler", false, &o, err)))
		return rc;
	if (o) {
		const char *p = "scheduler";
		if ((rc = pp_jcheck_keys(d, o, p, sch_keys, PP_ARRAY_LEN(sch_keys), err)) ||
		    (rc = pp_jget_enum(d, o, p, "type", false, pp_csched_names, 2, &e, &present,
				       err)))
			return rc;
		if (present)
			s->sched = (pp_csched)e;
		if ((rc = inum(d, o, p, "max_job_test", false, 1, 1000000, &s->backfill_max_job_test,
			       err)) ||
		    (rc = pp_jget_enum(d, o, p, "placement", false, pp_cplace_names, 3, &e, &present,
				       err)))
			return rc;
		if (present)
			s->placement = (pp_cplace)e;
		if ((rc = pp_jget_enum(d, o, p, "topology_mode", false, pp_ctopo_names, 3, &e,
				       &present, err)))
			return rc;
		if (present)
			s->topology_mode = (pp_ctopo)e;
		if ((rc = pp_jget_enum(d, o, p, "preempt_mode", false, preempt, 2, &e, &present,
				       err)))
			return rc;
		if (present)
			s->preempt = e == 1;
		if ((rc = num(d, o, p, "preempt_exempt_time_s", false, 0, 1e9, &s->preempt_exempt_s,
			      err)) ||
		    (rc = pp_jget_num(d, o, p, "batch_sched_delay_s", false, 0, 86400,
				      &s->batch_sched_delay_s, &s->batch_dispatch, err)) ||
		    (rc = num(d, o, p, "sched_interval_s", false, 1, 86400, &s->sched_interval_s,
			      err)) ||
		    (rc = num(d, o, p, "time_resolution_s", false, 0, 3600, &s->time_resolution_s,
			      err)))
			return rc;
	}
	if ((rc = parse_queues(s, d, root, err)))
		return rc;
	double rf = 0, ri = NAN;
	s->repair_s = 0;
	s->restart_s = 0;
	s->lemon_fraction = 0;
	s->lemon_factor = 1;
	s->max_requeue = 5;
	if ((rc = pp_jget_obj(d, root, "", "reliability", false, &o, err)))
		return rc;
	if (o) {
		const char *p = "reliability";
		if ((rc = pp_jcheck_keys(d, o, p, rel_keys, PP_ARRAY_LEN(rel_keys), err)) ||
		    (rc = num(d, o, p, "failures_per_1000_node_days", false, 0, 1e5, &rf, err)) ||
		    (rc = num(d, o, p, "interruptions_per_1000_node_days", false, 0, 1e5, &ri, err)) ||
		    (rc = num(d, o, p, "repair_time_s", false, 0, 1e9, &s->repair_s, err)) ||
		    (rc = num(d, o, p, "restart_s", false, 0, 1e9, &s->restart_s, err)) ||
		    (rc = num(d, o, p, "lemon_fraction", false, 0, 1, &s->lemon_fraction, err)) ||
		    (rc = num(d, o, p, "lemon_factor", false, 1, 1e4, &s->lemon_factor, err)) ||
		    (rc = inum(d, o, p, "max_requeue", false, -1, 1000000, &s->max_requeue, err)))
			return rc;
		if (!isnan(ri) && ri < rf)
			return pp_jdoc_errf(d, err, "reliability.interruptions_per_1000_node_days",
					    "found %g, below failures_per_1000_node_days (%g); "
					    "expected the all-cause rate, which includes the "
					    "infrastructure failures", ri, rf);
	}
	if (isnan(ri))
		ri = rf;
	s->infra_failures_per_node_s = rf / 1000.0 / DAY_S;
	s->interruptions_per_node_s = ri / 1000.0 / DAY_S;
	s->usd_per_gpu_hour = NAN;
	if ((rc = pp_jget_obj(d, root, "", "cost", false, &o, err)))
		return rc;
	if (o && ((rc = pp_jcheck_keys(d, o, "cost", cost_keys, PP_ARRAY_LEN(cost_keys), err)) ||
		  (rc = num(d, o, "cost", "usd_per_gpu_hour", true, 0, 1e5, &s->usd_per_gpu_hour,
			    err))))
		return rc;
	if ((rc = pp_cspot_parse(&s->spot, d, root, d->path, err)))
		return rc;
	int64_t seed = 1;
	if ((rc = pp_jget_int(d, root, "", "seed", false, 0, 4294967295LL, &seed, NULL, err)))
		return rc;
	s->seed = (unsigned long)seed;
	s->timeline_points = 200;
	if ((rc = num(d, root, "", "horizon_s", false, 0, 1e10, &s->horizon_s, err)) ||
	    (rc = inum(d, root, "", "timeline_points", false, 2, 100000, &s->timeline_points, err)))
		return rc;
	return 0;
}

int pp_cspec_parse(pp_cspec *s, const char *name, const char *text, size_t len, pp_err *err)
{
	pp_jdoc d;
	memset(s, 0, sizeof(*s));
	int rc = pp_jdoc_parse(&d, name, text, len, err);
	if (rc) {
		pp_jdoc_release(&d); /* what it read before the error */
		return rc;
	}
	rc = parse_body(s, &d, err);
	pp_jdoc_release(&d);
	if (rc)
		pp_cspec_release(s);
	return rc;
}

int pp_cspec_load(pp_cspec *s, const char *path, pp_err *err)
{
	char *text;
	size_t len;
	memset(s, 0, sizeof(*s));
	int rc = pp_read_file(path, 16u << 20, &text, &len, err);
	if (rc)
		return rc;
	rc = pp_cspec_parse(s, path, text, len, err);
	free(text);
	if (!rc)
		snprintf(s->path, sizeof(s->path), "%s", path);
	return rc;
}

void pp_cspec_release(pp_cspec *s)
{
	free(s->types);
	free(s->queues);
	pp_cspot_release(&s->spot);
	s->types = NULL;
	s->queues = NULL;
	s->ntypes = s->nqueues = 0;
}

void pp_cspec_copy(pp_cspec *dst, const pp_cspec *src)
{
	*dst = *src;
	dst->types = pp_xcalloc((size_t)src->ntypes + 1, sizeof(*dst->types));
	memcpy(dst->types, src->types, (size_t)src->ntypes * sizeof(*dst->types));
	dst->queues = pp_xcalloc((size_t)src->nqueues + 1, sizeof(*dst->queues));
	if (src->nqueues)
		memcpy(dst->queues, src->queues, (size_t)src->nqueues * sizeof(*dst->queues));
	pp_cspot_copy(&dst->spot, &src->spot);
}

int pp_cspec_queue(const pp_cspec *s, const char *name)
{
	for (int i = 0; i < s->nqueues; i++)
		if (!strcmp(s->queues[i].name, name))
			return i;
	return -1;
}
