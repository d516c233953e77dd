/* hflayers.c - a Hugging Face config's MoE layers as podplan's
 * moe_layer_freq (hfint.h), shared by the family readers (hfconfig.c,
 * hfllama4.c). */
#include "input/hfint.h"

int pp_hf_set_layers(const pp_jdoc *hf, pp_model *m, const bool *moe, pp_err *err)
{
	int L = m->num_layers, n = L, any = 0;
	for (int i = 0; i < L; i++)
		any += moe[i];
	if (!any) { /* no layer has experts (first_k_dense_replace >= layers): a dense model */
		m->num_experts = m->moe_router_topk = m->moe_ffn_hidden_size = 0;
		m->moe_shared_expert_intermediate_size = m->moe_layer_freq = m->moe_list_len = 0;
		return 0;
	}
	if (moe[0])
		for (n = 1; n < L && !moe[n]; n++)
			;
	bool every_n = moe[0];
	for (int i = 0; i < L && every_n; i++)
		every_n = moe[i] == (i % n == 0);
	m->moe_list_len = 0;
	if (every_n) {
		m->moe_layer_freq = n;
		return 0;
	}
	if (L > PP_MOE_LIST_MAX)
		return pp_jdoc_errf(hf, err, "num_hidden_layers", "found %d layers with a dense/MoE "
				    "pattern; expected at most %d (podplan's longest moe_layer_freq "
				    "list)", L, PP_MOE_LIST_MAX);
	for (int i = 0; i < L; i++)
		m->moe_list[i] = moe[i];
	m->moe_list_len = L;
	m->moe_layer_freq = 0;
	return 0;
}
