/*
 * dtype.h - the datatypes a GPU's tensor cores run and a training step
 * stores (fp32, tf32, bf16, fp16, fp8): their names as the catalogs and
 * scenario files write them, and their size.
 */
#ifndef PP_DTYPE_H
#define PP_DTYPE_H

typedef enum pp_dtype {
	PP_DT_FP32,
	PP_DT_TF32,
	PP_DT_BF16,
	PP_DT_FP16,
	PP_DT_FP8,
	PP_DT_COUNT
} pp_dtype;

extern const char *const pp_dtype_names[PP_DT_COUNT];
/* Bytes per element a dtype's tensors take (fp8: 1, bf16/fp16: 2, fp32/tf32: 4). */
double pp_dtype_bytes(pp_dtype dt);

#endif
