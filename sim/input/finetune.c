/* finetune.c - see finetune.h. */
#include "input/finetune.h"
#include "input/scenario.h"

const char *const pp_ft_method_names[PP_FT_COUNT] = {"full", "lora", "qlora", "auto"};

void pp_training_set_finetune(pp_training *tr, pp_ft_method m, const pp_catalog *cat)
{
	tr->finetune = m;
	tr->base_weight_bytes = 0;
	if (m == PP_FT_QLORA)
		tr->base_weight_bytes = pp_catalog_finetune(cat)->nf4_bits_per_param / 8.0;
	else if (m == PP_FT_LORA)
		tr->base_weight_bytes = tr->precision == PP_DT_FP32 || tr->precision == PP_DT_TF32 ? 4.0 : 2.0;
}
