/* breakdown.c - see breakdown.h. */
#include "engine/breakdown.h"

#include <math.h>
#include <string.h>

#define F(name, label, short_label, group) \
	{#name, offsetof(pp_breakdown, name), label, short_label, group}
const pp_breakdown_field pp_breakdown_fields[PP_BD_COUNT] = {
	F(compute_s, "compute", "compute", PP_BD_COMPUTE),
	F(tp_comm_exposed_s, "tensor/context-parallel comm (exposed)", "TP/CP", PP_BD_COMM),
	F(ep_comm_exposed_s, "expert-parallel comm (exposed)", "EP", PP_BD_COMM),
	F(dp_comm_exposed_s, "data-parallel comm (exposed)", "DP", PP_BD_COMM),
	F(pp_bubble_s, "pipeline bubble", "bubble", PP_BD_BUBBLE),
	F(pp_comm_exposed_s, "pipeline send/recv (exposed)", "p2p", PP_BD_COMM),
	F(optimizer_s, "optimizer step", "optim", PP_BD_OTHER),
	F(data_s, "data loading (exposed)", "data", PP_BD_OTHER),
};
#undef F

double pp_breakdown_get(const pp_breakdown *b, int k)
{
	double v;
	memcpy(&v, (const char *)b + pp_breakdown_fields[k].offset, sizeof(v));
	return v;
}

void pp_breakdown_values(const pp_breakdown *b, double out[PP_BD_COUNT])
{
	for (int k = 0; k < PP_BD_COUNT; k++)
		out[k] = pp_breakdown_get(b, k);
}

void pp_breakdown_groups(const pp_breakdown *b, double out[PP_BD_GROUPS])
{
	for (int g = 0; g < PP_BD_GROUPS; g++)
		out[g] = 0;
	for (int k = 0; k < PP_BD_COUNT; k++)
		out[pp_breakdown_fields[k].group] += pp_breakdown_get(b, k);
}

const char *pp_breakdown_label(int k, bool blocking_p2p)
{
	if (blocking_p2p && pp_breakdown_fields[k].offset == offsetof(pp_breakdown, pp_comm_exposed_s))
		return "pipeline p2p + blocking stall";
	return pp_breakdown_fields[k].label;
}

int pp_breakdown_label_width(void)
{
	int w = 0;
	for (int k = 0; k < PP_BD_COUNT; k++) {
		int a = (int)strlen(pp_breakdown_fields[k].label);
		int b = (int)strlen(pp_breakdown_label(k, true));
		w = a > w ? a : w;
		w = b > w ? b : w;
	}
	return w;
}

cJSON *pp_breakdown_json(cJSON *parent, const char *key, const pp_breakdown *b, int sig)
{
	cJSON *o = pp_json_obj(parent, key);
	for (int k = 0; k < PP_BD_COUNT; k++)
		pp_json_num(o, pp_breakdown_fields[k].key, pp_breakdown_get(b, k), sig);
	return o;
}

void pp_breakdown_csv_names(pp_csvw *w)
{
	for (int k = 0; k < PP_BD_COUNT; k++)
		pp_csvw_text(w, pp_breakdown_fields[k].key);
}

void pp_breakdown_csv(pp_csvw *w, const pp_breakdown *b, int sig)
{
	for (int k = 0; k < PP_BD_COUNT; k++)
		pp_csvw_num(w, b ? pp_breakdown_get(b, k) : NAN, sig);
}
