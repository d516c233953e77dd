/* scenparallel.c - the scenario's "parallel" section: the parallel sizes,
 * the pipeline's split of the layers (decoder_first/last_pipeline_num_layers
 * or Megatron-Core's pipeline_model_parallel_layout string), sequence
 * parallelism, ZeRO and the schedule (scenint.h). Whether the layout as a
 * whole is valid is layout.h's. */
#include "input/scenint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const parallel_keys[] = {"tensor_model_parallel_size",
					    "pipeline_model_parallel_size", "data_parallel_size",
					    "context_parallel_size",
					    "virtual_pipeline_model_parallel_size", "sequence_parallel",
					    "decoder_first_pipeline_num_layers",
					    "decoder_last_pipeline_num_layers",
					    "pipeline_model_parallel_layout", "zero_stage", "pipeline_schedule",
					    "expert_model_parallel_size",
					    "expert_tensor_parallel_size"};
/* Megatron-Core's pipeline_model_parallel_layout string
 * (transformer/pipeline_parallel_layer_layout.py parse_str_to_list at
 * core_v0.19): commas dropped, "(...)*n" and then "x*n" unrolled (so a
 * group may hold "x*n"), '|' splits the
 * virtual stages, E embedding, t a decoder layer, m an MTP depth, L the
 * loss. podplan runs the embedding on the first virtual stage and the head
 * (with the MTP depths) on the last, so E must open the layout and the m's
 * and the L close it, in the last virtual stage (Megatron's own rules:
 * embedding first, loss last, MTP after every decoder layer and in a
 * rank's last chunk). The virtual stages set the chunks per stage:
 * their count over pipeline_model_parallel_size. */
static int unroll(const char *in, char *out, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; in[i]; i++) {
		const char *body = NULL;
		size_t blen = 0, next = i;
		if (in[i] == '(') {
			const char *close = strchr(in + i, ')');
			if (!close || close[1] != '*')
				return -1;
			body = in + i + 1;
			blen = (size_t)(close - body);
			next = (size_t)(close - in) + 1;
		} else if (in[i + 1] == '*') {
			body = in + i;
			blen = 1;
			next = i + 1;
		}
		if (!body) {
			if (o + 1 >= n)
				return -1;
			out[o++] = in[i];
			continue;
		}
		char *end;
		long times = strtol(in + next + 1, &end, 10);
		if (end == in + next + 1 || times < 0 || times > 100000)
			return -1;
		for (long r = 0; r < times; r++) {
			if (o + blen >= n)
				return -1;
			memcpy(out + o, body, blen);
			o += blen;
		}
		i = (size_t)(end - in) - 1;
	}
	out[o] = 0;
	return 0;
}

static int parse_layout(pp_scenario *s, const cJSON *p, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	pp_parallel *pa = &s->parallel;
	const char *K = "parallel.pipeline_model_parallel_layout";
	char raw[512] = "", plain[512], ex[8192];
	bool present = false;
	int rc;
	pa->layout_len = 0;
	pa->layout_mtp = 0;
	memset(pa->layout_layers, 0, sizeof(pa->layout_layers));
	if ((rc = pp_jget_str(d, p, "parallel", "pipeline_model_parallel_layout", false, raw,
			      sizeof(raw), &present, err)))
		return rc;
	if (!present)
		return 0;
	size_t o = 0;
	for (size_t i = 0; raw[i]; i++)
		if (raw[i] != ',' && raw[i] != ' ')
			plain[o++] = raw[i];
	plain[o] = 0;
	/* twice, as Megatron substitutes the groups and then the single
	 * characters: "(t*8|)*14" holds a repeat inside a group */
	char once[8192];
	if (unroll(plain, once, sizeof(once)) || unroll(once, ex, sizeof(ex)))
		return pp_jdoc_errf(d, err, K, "found \"%s\": cannot unroll it; expected Megatron's "
				    "syntax, virtual stages split by '|', \"(...)*n\" or \"x*n\" to "
				    "repeat (e.g. \"Et|(tt|)*30mL\")", raw);
	if (pa->first_stage_layers || pa->last_stage_layers)
		return pp_jdoc_errf(d, err, K, "found with decoder_first/last_pipeline_num_layers; "
				    "expected one of the two ways to split the layers");
	int n = 1, e_at = -1, l_at = -1, first_m = -1, last_t = -1;
	size_t len = strlen(ex);
	for (size_t i = 0; i < len; i++) {
		char ch = ex[i];
		if (ch == '|') {
			if (n >= PP_LAYOUT_MAX)
				return pp_jdoc_errf(d, err, K, "found more than %d virtual stages; "
						    "expected at most %d", PP_LAYOUT_MAX, PP_LAYOUT_MAX);
			n++;
			continue;
		}
		if (ch == 't') {
			pa->layout_layers[n - 1]++;
			last_t = (int)i;
		} else if (ch == 'm') {
			pa->layout_mtp++;
			if (first_m < 0)
				first_m = (int)i;
		} else if (ch == 'E') {
			if (e_at >= 0)
				return pp_jdoc_errf(d, err, K, "found \"%s\" with more than one E; expected "
						    "the embedding exactly once", raw);
			e_at = (int)i;
		} else if (ch == 'L') {
			if (l_at >= 0)
				return pp_jdoc_errf(d, err, K, "found \"%s\" with more than one L; expected "
						    "the loss exactly once", raw);
			l_at = (int)i;
		} else {
			return pp_jdoc_errf(d, err, K, "found '%c' in \"%s\"; expected the layer "
					    "characters E (embedding), t (decoder layer), m (MTP) and L "
					    "(loss), '|' between virtual stages", ch, raw);
		}
	}
	if (e_at != 0 || l_at != (int)len - 1)
		return pp_jdoc_errf(d, err, K, "found \"%s\"; expected E first and L last "
				    "(Megatron-Core: \"The first layer must be embedding\", \"The last "
				    "layer must be loss\")", raw);
	const char *lastvs = strrchr(ex, '|');
	if (first_m >= 0 && (first_m < last_t || (lastvs && first_m < lastvs - ex)))
		return pp_jdoc_errf(d, err, K, "found \"%s\": an MTP depth before a decoder layer or "
				    "outside the last virtual stage; expected the m's after every t, in "
				    "the last stage with the L (podplan runs them with the loss)", raw);
	pa->layout_len = n;
	if (pa->pp < 1 || n % pa->pp)
		return pp_jdoc_errf(d, err, K, "found %d virtual stages, not a multiple of "
				    "pipeline_model_parallel_size %d; expected a multiple (Megatron-Core: "
				    "\"pipeline_model_parallel_layout must be divisible by "
				    "pipeline_model_parallel_size\")", n, pa->pp);
	int v = n / pa->pp;
	if ((s->given & PP_GIVEN_VPP) && pa->vpp != v)
		return pp_jdoc_errf(d, err, K, "found %d virtual stages over %d pipeline stages = %d "
				    "chunks each, but virtual_pipeline_model_parallel_size is %d; expected "
				    "them to agree (or leave the latter out)", n, pa->pp, v, pa->vpp);
	pa->vpp = v;
	return 0;
}

int pp_scen_parse_parallel(pp_scenario *s, pp_err *err)
{
	const pp_jdoc *d = &s->doc;
	const cJSON *p;
	int rc;
	pp_parallel *pa = &s->parallel;
	pa->tp = pa->pp = pa->dp = pa->cp = pa->vpp = 1;
	pa->ep = 1;
	pa->etp = 0; /* not given: the tensor-parallel size (Megatron-Core's default) */
	pa->schedule = PP_SCHED_1F1B;
	if ((rc = pp_jget_obj(d, d->root, "", "parallel", false, &p, err)))
		return rc;
	if (!p)
		return 0;
	if ((rc = pp_jcheck_keys(d, p, "parallel", parallel_keys, PP_ARRAY_LEN(parallel_keys), err)))
		return rc;
	struct {
		const char *key;
		int *field;
		unsigned flag;
	} ints[] = {
		{"tensor_model_parallel_size", &pa->tp, PP_GIVEN_TP},
		{"pipeline_model_parallel_size", &pa->pp, PP_GIVEN_PP},
		{"data_parallel_size", &pa->dp, PP_GIVEN_DP},
		{"context_parallel_size", &pa->cp, PP_GIVEN_CP},
		{"virtual_pipeline_model_parallel_size", &pa->vpp, PP_GIVEN_VPP},
		{"expert_model_parallel_size", &pa->ep, PP_GIVEN_EP},
		/* given when > 0; left out it means the tensor-parallel size */
		{"expert_tensor_parallel_size", &pa->etp, 0},
	};
	for (size_t i = 0; i < PP_ARRAY_LEN(ints); i++) {
		int64_t v = 0;
		bool present;
		if ((rc = pp_jget_int(d, p, "parallel", ints[i].key, false, 1, PP_LAYOUT_SIZE_MAX, &v,
				      &present, err)))
			return rc;
		if (present) {
			*ints[i].field = (int)v;
			s->given |= ints[i].flag;
		}
	}
	int64_t fl = 0, ll = 0;
	if ((rc = pp_jget_int(d, p, "parallel", "decoder_first_pipeline_num_layers", false, 1,
			      PP_MODEL_DIM_MAX, &fl, NULL, err)) ||
	    (rc = pp_jget_int(d, p, "parallel", "decoder_last_pipeline_num_layers", false, 1,
			      PP_MODEL_DIM_MAX, &ll, NULL, err)))
		return rc;
	pa->first_stage_layers = (int)fl;
	pa->last_stage_layers = (int)ll;
	if ((rc = parse_layout(s, p, err)))
		return rc;
	bool present;
	if ((rc = pp_jget_bool(d, p, "parallel", "sequence_parallel", false, &pa->sequence_parallel,
			       &present, err)))
		return rc;
	if (present)
		s->given |= PP_GIVEN_SP;
	int64_t z = 0;
	if ((rc = pp_jget_int(d, p, "parallel", "zero_stage", false, 0, 3, &z, &present, err)))
		return rc;
	if (present) {
		pa->zero_stage = (int)z;
		s->given |= PP_GIVEN_ZERO;
	}
	char name[48];
	if ((rc = pp_jget_str(d, p, "parallel", "pipeline_schedule", false, name, sizeof(name),
			      &present, err)))
		return rc;
	if (present) {
		int e = pp_schedule_lookup(name);
		if (e < 0)
			return pp_jdoc_errf(d, err, "parallel.pipeline_schedule", "found \"%s\"; expected "
					    "one of 1f1b, gpipe, interleaved, zb-h1, zb-h2, zbv, dualpipev, "
					    "dualpipe or "
					    "PyTorch's Schedule1F1B, ScheduleGPipe, ScheduleInterleaved1F1B, "
					    "ScheduleZBVZeroBubble, ScheduleDualPipeV", name);
		pa->schedule = (pp_schedule)e;
		s->given |= PP_GIVEN_SCHEDULE;
	}
	if (pa->vpp > 1 && !(s->given & PP_GIVEN_SCHEDULE))
		pa->schedule = PP_SCHED_INTERLEAVED;
	if (pp_schedule_two_chunks(pa->schedule)) {
		/* two stages a rank, in a V (PyTorch: exactly two stages per
		 * rank) or DualPipe's two directions */
		if (pa->vpp > 2)
			return pp_jdoc_errf(d, err, "parallel.virtual_pipeline_model_parallel_size",
					    "found %d with pipeline_schedule \"%s\"; expected 2 (or left "
					    "out): the schedule holds two stages a rank", pa->vpp,
					    pp_schedule_names[pa->schedule]);
		/* pipeline_model_parallel_layout lists a V's virtual stages in
		 * the model's order (pp_pipe_vs places them; DualPipe: its pp
		 * stages); Megatron's first and last stage counts name ranks,
		 * which a V or DualPipe does not split */
		if (pa->first_stage_layers || pa->last_stage_layers)
			return pp_jdoc_errf(d, err, "parallel.pipeline_schedule", "found \"%s\" with "
					    "decoder_first/last_pipeline_num_layers; expected the even "
					    "split or a pipeline_model_parallel_layout of %s"
					    "pipeline_model_parallel_size virtual stages", pp_schedule_names[pa->schedule],
					    pp_schedule_two_ended(pa->schedule) ? "" : "2 x ");
		pa->vpp = 2;
		return 0;
	}
	if (pa->vpp > 1 && pa->schedule != PP_SCHED_INTERLEAVED)
		return pp_jdoc_errf(d, err, "parallel.pipeline_schedule", "found \"%s\" with "
				    "virtual_pipeline_model_parallel_size %d; expected \"interleaved\"",
				    pp_schedule_names[pa->schedule], pa->vpp);
	return 0;
}
