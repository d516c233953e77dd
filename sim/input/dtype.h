/*
 * dtype.h - the datatypes a GPU's tensor cores run and a step stores
 * (fp32, tf32, bf16, fp16, fp8, and for serving the two block-scaled FP4
 * formats nvfp4 and mxfp4): their names as the catalogs and scenario files
 * write them, and their size.
 *
 * The FP4 formats store 4-bit E2M1 elements with a scale per block:
 *   nvfp4: one FP8 E4M3 scale per 16 elements, plus one fp32 scale per
 *          tensor: (16 x 4 + 8) / 16 = 4.5 bits an element (NVIDIA,
 *          "Introducing NVFP4 for Efficient and Accurate Low-Precision
 *          Inference", developer.nvidia.com blog, 2025-06-24; TensorRT
 *          Model Optimizer's NVFP4 quantization).
 *   mxfp4: one E8M0 (power-of-two) scale per 32 elements:
 *          (32 x 4 + 8) / 32 = 4.25 bits an element (OCP Microscaling
 *          Formats (MX) Specification v1.0, 2023-09, Sec. 5.2 and 5.4).
 * The per-tensor fp32 scale of nvfp4 (4 bytes a weight matrix) is not
 * counted. They are serving precisions only: training refuses them.
 */
#ifndef PP_DTYPE_H
#define PP_DTYPE_H

#include <stdbool.h>

typedef enum pp_dtype {
	PP_DT_FP32,
	PP_DT_TF32,
	PP_DT_BF16,
	PP_DT_FP16,
	PP_DT_FP8,
	PP_DT_NVFP4,
	PP_DT_MXFP4,
	PP_DT_COUNT
} pp_dtype;

/* The dtypes a training step may run in: fp32 .. fp8 (the first
 * PP_DT_TRAIN_COUNT of pp_dtype_names). */
#define PP_DT_TRAIN_COUNT (PP_DT_FP8 + 1)

extern const char *const pp_dtype_names[PP_DT_COUNT];
/* Bytes per element a dtype's tensors take, block scales included
 * (nvfp4: 0.5625, mxfp4: 0.53125, fp8: 1, bf16/fp16: 2, fp32/tf32: 4). */
double pp_dtype_bytes(pp_dtype dt);
/* True for the block-scaled 4-bit formats (nvfp4, mxfp4). */
bool pp_dtype_is_fp4(pp_dtype dt);
/* The dtype attention runs in when the GEMMs run in dt: 8- and 4-bit
 * GEMMs keep 16-bit attention (bf16), as vLLM's and TensorRT-LLM's fp8
 * and fp4 checkpoints do outside an fp8 KV cache. */
pp_dtype pp_dtype_attn(pp_dtype dt);

#endif
