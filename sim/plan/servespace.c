/* servespace.c - see servespace.h. */
#include "plan/servespace.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

#define MAX_STAGES 16
#define MAX_VALUES PP_SSPACE_MAX_VALUES

/* ---- the space ---- */

static bool given(const pp_scenario *s, const char *key)
{
	const cJSON *sv = cJSON_GetObjectItemCaseSensitive(s->doc.root, "serving");
	return cJSON_GetObjectItemCaseSensitive(sv, key) != NULL;
}

static void add64(int64_t *v, int *n, int64_t x)
{
	for (int i = 0; i < *n; i++)
		if (v[i] == x)
			return;
	int i = (*n)++;
	while (i > 0 && v[i - 1] > x) {
		v[i] = v[i - 1];
		i--;
	}
	v[i] = x;
}

static void list_words(pp_sb *o, const char *name, const int64_t *v, int n)
{
	pp_sb_addf(o, "%s {", name);
	for (int i = 0; i < n; i++)
		pp_sb_addf(o, "%s%lld", i ? ", " : "", (long long)v[i]);
	pp_sb_adds(o, "}");
}

static void make_values(const pp_scenario *s, pp_serve_space *sp, pp_sb *fixed)
{
	const pp_servespec *sv = &s->serve;
	const pp_model *m = &s->model;
	sp->moe = m->num_experts > 0;
	int gpn = pp_cluster_domain_gpus(&s->cluster); /* TP stays on NVLink */
	if (given(s, "tensor_parallel_size")) {
		sp->tp[sp->ntp++] = sv->tp;
		pp_sb_addf(fixed, "%stensor_parallel_size %d", fixed->len ? ", " : "", sv->tp);
	} else {
		for (int t = 1; t <= gpn && sp->ntp < MAX_VALUES; t *= 2)
			sp->tp[sp->ntp++] = t;
	}
	if (given(s, "pipeline_parallel_size")) {
		sp->pp[sp->npp++] = sv->pp;
		pp_sb_addf(fixed, "%spipeline_parallel_size %d", fixed->len ? ", " : "", sv->pp);
	} else {
		for (int p = 1; p <= MAX_STAGES && p <= m->num_layers; p *= 2)
			sp->pp[sp->npp++] = p;
	}
	if (!sp->moe || given(s, "enable_expert_parallel")) {
		sp->ep[sp->nep++] = sv->expert_parallel;
		if (sp->moe)
			pp_sb_addf(fixed, "%senable_expert_parallel %s", fixed->len ? ", " : "",
				   sv->expert_parallel ? "true" : "false");
	} else {
		sp->ep[sp->nep++] = 0;
		sp->ep[sp->nep++] = 1;
	}
	sp->def_seqs = sv->max_num_seqs;
	sp->def_toks = sv->max_num_batched_tokens;
	if (given(s, "max_num_seqs")) {
		sp->seqs[sp->nseqs++] = sv->max_num_seqs;
		pp_sb_addf(fixed, "%smax_num_seqs %lld", fixed->len ? ", " : "",
			   (long long)sv->max_num_seqs);
	} else {
		for (int64_t x = 64; x <= 1024; x *= 2)
			add64(sp->seqs, &sp->nseqs, x);
		add64(sp->seqs, &sp->nseqs, sv->max_num_seqs);
	}
	if (given(s, "max_num_batched_tokens")) {
		sp->toks[sp->ntoks++] = sv->max_num_batched_tokens;
		pp_sb_addf(fixed, "%smax_num_batched_tokens %lld", fixed->len ? ", " : "",
			   (long long)sv->max_num_batched_tokens);
	} else {
		for (int64_t x = 2048; x <= 16384; x *= 2)
			add64(sp->toks, &sp->ntoks, x);
		add64(sp->toks, &sp->ntoks, sv->max_num_batched_tokens);
	}
	if (given(s, "data_parallel_size"))
		pp_sb_addf(fixed, "%sdata_parallel_size %d", fixed->len ? ", " : "", sv->dp);
}

void pp_serve_space_of(const pp_scenario *s, int max_replicas, pp_serve_space *sp)
{
	memset(sp, 0, sizeof(*sp));
	pp_sb fixed = {0}, w = {0};
	make_values(s, sp, &fixed);
	snprintf(sp->fixed, sizeof(sp->fixed), "%s", fixed.buf ? fixed.buf : "");
	pp_sb_release(&fixed);
	sp->dp_fixed = given(s, "data_parallel_size");
	int64_t v[MAX_VALUES];
	for (int i = 0; i < sp->ntp; i++)
		v[i] = sp->tp[i];
	list_words(&w, "TP", v, sp->ntp);
	for (int i = 0; i < sp->npp; i++)
		v[i] = sp->pp[i];
	pp_sb_adds(&w, " x ");
	list_words(&w, "PP", v, sp->npp);
	if (sp->moe)
		pp_sb_addf(&w, " x expert parallel %s",
			   sp->nep == 2 ? "{off, on}" : sp->ep[0] ? "{on}" : "{off}");
	pp_sb_adds(&w, " x ");
	list_words(&w, "max_num_seqs", sp->seqs, sp->nseqs);
	pp_sb_adds(&w, " x ");
	list_words(&w, "max_num_batched_tokens", sp->toks, sp->ntoks);
	if (sp->dp_fixed)
		pp_sb_addf(&w, "; %d replicas (given)", s->serve.dp);
	else
		pp_sb_addf(&w, "; replicas 1 to %d (whole nodes of %d beyond one node)", max_replicas,
			   s->cluster.gpus_per_node);
	snprintf(sp->words, sizeof(sp->words), "%s", w.buf);
	pp_sb_release(&w);
}

int pp_serve_space_layouts(const pp_serve_space *sp, pp_serve_layout **out)
{
	int cap = sp->ntp * sp->npp * sp->nep * sp->nseqs * sp->ntoks, n = 0;
	pp_serve_layout *l = pp_xcalloc((size_t)cap + 1, sizeof(*l));
	for (int a = 0; a < sp->ntp; a++)
		for (int b = 0; b < sp->npp; b++)
			for (int e = 0; e < sp->nep; e++) {
				if (sp->ep[e] && sp->tp[a] == 1 && sp->nep == 2)
					continue; /* EP over one rank is no EP */
				for (int q = 0; q < sp->nseqs; q++)
					for (int t = 0; t < sp->ntoks; t++)
						l[n++] = (pp_serve_layout){sp->tp[a], sp->pp[b], sp->ep[e] != 0,
									   sp->seqs[q], sp->toks[t], false, 0, 0};
			}
	*out = l;
	return n;
}

int pp_serve_layout_changed(const pp_serve_space *sp, const pp_serve_layout *l)
{
	return (l->max_num_seqs != sp->def_seqs) + (l->max_num_batched_tokens != sp->def_toks);
}

bool pp_serve_whole_nodes(int64_t gpus, int gpn)
{
	return gpus <= gpn || gpus % gpn == 0;
}

/* ---- candidates ---- */

static void set_num(cJSON *o, const char *key, double v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	cJSON_AddNumberToObject(o, key, v);
}

cJSON *pp_serve_space_scenario(const pp_scenario *s, const pp_serve_layout *l, int dp)
{
	cJSON *root = cJSON_Duplicate(s->doc.root, true);
	cJSON *cl = cJSON_GetObjectItemCaseSensitive(root, "cluster");
	cJSON *sv = cJSON_GetObjectItemCaseSensitive(root, "serving");
	cJSON_DeleteItemFromObjectCaseSensitive(sv, "disaggregation");
	set_num(sv, "tensor_parallel_size", l->tp);
	set_num(sv, "pipeline_parallel_size", l->pp);
	if (l->disagg) {
		set_num(cl, "num_gpus", (double)l->prefill_tp * l->prefill_dp + (double)l->tp * dp);
		cJSON_DeleteItemFromObjectCaseSensitive(sv, "data_parallel_size");
		cJSON *g = cJSON_AddObjectToObject(sv, "disaggregation");
		cJSON *p = cJSON_AddObjectToObject(g, "prefill"), *d = cJSON_AddObjectToObject(g, "decode");
		cJSON_AddStringToObject(p, "kv_role", "kv_producer");
		set_num(p, "tensor_parallel_size", l->prefill_tp);
		set_num(p, "data_parallel_size", l->prefill_dp);
		cJSON_AddStringToObject(d, "kv_role", "kv_consumer");
		set_num(d, "tensor_parallel_size", l->tp);
		set_num(d, "data_parallel_size", dp);
		cJSON *x = cJSON_AddObjectToObject(g, "kv_transfer_config");
		cJSON_AddStringToObject(x, "kv_connector", "NixlConnector");
		cJSON_AddStringToObject(x, "link", "auto");
	} else {
		set_num(cl, "num_gpus", (double)l->tp * l->pp * dp);
		set_num(sv, "data_parallel_size", dp);
	}
	if (s->model.num_experts > 0) {
		cJSON_DeleteItemFromObjectCaseSensitive(sv, "enable_expert_parallel");
		cJSON_AddBoolToObject(sv, "enable_expert_parallel", l->ep);
	}
	set_num(sv, "max_num_seqs", (double)l->max_num_seqs);
	set_num(sv, "max_num_batched_tokens", (double)l->max_num_batched_tokens);
	return root;
}

const char *pp_serve_layout_str(const pp_serve_layout *l, bool moe, char *buf, size_t n)
{
	if (l->disagg) {
		snprintf(buf, n, "prefill %d x TP %d + decode TP %d%s, seqs %lld, tokens %lld",
			 l->prefill_dp, l->prefill_tp, l->tp, moe ? (l->ep ? ", EP" : ", no EP") : "",
			 (long long)l->max_num_seqs, (long long)l->max_num_batched_tokens);
		return buf;
	}
	snprintf(buf, n, "TP %d x PP %d%s, seqs %lld, tokens %lld", l->tp, l->pp,
		 moe ? (l->ep ? ", EP" : ", no EP") : "", (long long)l->max_num_seqs,
		 (long long)l->max_num_batched_tokens);
	return buf;
}

void pp_serve_cand_release(pp_serve_cand *c)
{
	if (c->have_su)
		pp_serve_setup_release(&c->su);
	if (c->have_s)
		pp_scenario_release(&c->s);
	c->have_s = c->have_su = false;
}

int pp_serve_cand_init(pp_serve_cand *c, const pp_scenario *s, const pp_catalog *cat,
		       const pp_hwcal *hwcal,
		       const pp_serve_layout *l, int *verdict, char *why, size_t n, pp_err *err)
{
	memset(c, 0, sizeof(*c));
	*verdict = PP_CAND_OK;
	why[0] = '\0';
	int dp = 1; /* disaggregated: enough decode instances to fill whole nodes */
	while (l->disagg && dp < s->cluster.gpus_per_node &&
	       !pp_serve_whole_nodes((int64_t)l->prefill_tp * l->prefill_dp + (int64_t)l->tp * dp,
				     s->cluster.gpus_per_node))
		dp++;
	cJSON *j = pp_serve_space_scenario(s, l, dp);
	char *text = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	pp_err e = {0};
	int rc = pp_scenario_parse(&c->s, s->doc.path, text, strlen(text), cat, &e);
	free(text);
	if (rc == PP_EINPUT) {
		/* the message from its JSON path on */
		const char *m = strstr(e.msg, ": serving");
		if (!m)
			m = strstr(e.msg, ": cluster");
		snprintf(why, n, "%s", m ? m + 2 : e.msg);
		*verdict = PP_CAND_INVALID;
		return 0;
	}
	if (rc) {
		*err = e;
		return rc;
	}
	c->have_s = true;
	if ((rc = pp_hw_resolve(&c->hw, cat, &c->s.cluster, hwcal, err)))
		return rc;
	rc = pp_serve_setup_init(&c->su, &c->s, &c->hw, &e);
	c->su.pct_only = true; /* the planner reads each run's SLO percentiles alone */
	if (rc == PP_EINPUT) {
		const char *m = strstr(e.msg, ": serving: ");
		snprintf(why, n, "%s", m ? m + 11 : e.msg);
		*verdict = PP_CAND_NO_FIT;
		return 0;
	}
	if (rc) {
		*err = e;
		return rc;
	}
	c->have_su = true;
	return 0;
}
