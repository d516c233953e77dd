/* dtype.c - see dtype.h. */
#include "input/dtype.h"

const char *const pp_dtype_names[PP_DT_COUNT] = {"fp32", "tf32", "bf16", "fp16", "fp8", "nvfp4",
						 "mxfp4"};

double pp_dtype_bytes(pp_dtype dt)
{
	switch (dt) {
	case PP_DT_NVFP4: return (16 * 4 + 8) / 16.0 / 8.0; /* E2M1 + an E4M3 scale per 16 */
	case PP_DT_MXFP4: return (32 * 4 + 8) / 32.0 / 8.0; /* E2M1 + an E8M0 scale per 32 */
	case PP_DT_FP8: return 1.0;
	case PP_DT_BF16:
	case PP_DT_FP16: return 2.0;
	default: return 4.0;
	}
}

bool pp_dtype_is_fp4(pp_dtype dt)
{
	return dt == PP_DT_NVFP4 || dt == PP_DT_MXFP4;
}

pp_dtype pp_dtype_attn(pp_dtype dt)
{
	return dt == PP_DT_FP8 || pp_dtype_is_fp4(dt) ? PP_DT_BF16 : dt;
}
