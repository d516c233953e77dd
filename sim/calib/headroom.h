/*
 * headroom.h - the share of a GPU's memory a plan keeps free for the
 * caching allocator, from what it was measured to do: PyTorch's CUDA
 * caching allocator reserves more than the tensors it holds (blocks
 * rounded up, split blocks that cannot be reused, a cached segment per
 * stream; https://pytorch.org/docs/stable/notes/cuda.html#memory-management),
 * and a run starts only where the reservation fits. The framework set's
 * runs (models/calibrations/framework-h200.csv, `torch.cuda.
 * max_memory_reserved` and `max_memory_allocated` of each run) give the
 * reserve per framework: headroom = the median over its runs of
 * 1 - allocated / reserved. Every framework podplan models (frameworks.json:
 * Megatron-LM, NeMo, TorchTitan, DeepSpeed, plain PyTorch) allocates
 * through that allocator, so a framework with no measured run takes the
 * median over every measured run, and says so.
 */
#ifndef PP_HEADROOM_H
#define PP_HEADROOM_H

#include "input/catalog.h"

typedef struct pp_headroom {
	double share;           /* of the capacity kept free, 0..1 */
	int runs;               /* measured runs it comes from (0: given by the user) */
	char what[320];         /* where it comes from, in words */
} pp_headroom;

/* The headroom of framework (frameworks.json id) from cat's calibration
 * data. Errors: the CSV's (PP_EIO, PP_EINPUT); PP_ENOTFOUND when it holds
 * no run with both figures. */
int pp_headroom_measured(const pp_catalog *cat, const char *framework, pp_headroom *h,
			 pp_err *err);
/* A share the user gave (--memory-headroom): h says so. PP_EINPUT outside
 * [0, 0.9]. */
int pp_headroom_given(double share, pp_headroom *h, pp_err *err);
/* Whether bytes per GPU are above capacity x (1 - h->share) though
 * within capacity: then 1 and a sentence into buf ("78.7 of 80.0 GiB per
 * GPU needed, more than the 88.5% left after ..."); else 0. */
int pp_headroom_check(const pp_headroom *h, double bytes, double capacity, char *buf, size_t n);

#endif
