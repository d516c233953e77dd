/* dtype.c - see dtype.h. */
#include "input/dtype.h"

const char *const pp_dtype_names[PP_DT_COUNT] = {"fp32", "tf32", "bf16", "fp16", "fp8"};

double pp_dtype_bytes(pp_dtype dt)
{
	switch (dt) {
	case PP_DT_FP8: return 1.0;
	case PP_DT_BF16:
	case PP_DT_FP16: return 2.0;
	default: return 4.0;
	}
}
