/*
 * memeager.h - device memory per GPU as an eager PyTorch step allocates it
 * (frameworks.json eager_memory: the `pytorch` framework, a Hugging Face
 * model under a plain loop, DDP or FSDP2's fully_shard).
 *
 * memory.c sums every term at once (weights, gradients, optimizer states,
 * activations, the logits' chain, buffers) as Megatron's accounting does.
 * An eager step holds them in turn, and its peak is the largest of its
 * phases (torch 2.11: zero_grad(set_to_none=True) frees the gradients
 * before the forward; torch.optim.AdamW creates its states at the first
 * step and one state-sized temporary in each):
 *   A  the loss at the forward's end: the layers' saved activations, the
 *      bf16 weight casts of the autocast cache (kept until the outermost
 *      autocast region exits, under full recompute too), the logits'
 *      chain at its forward peak (cross_entropy fwd_peak_bytes);
 *   B  the loss's backward: the chain at its peak (peak_bytes), the weight
 *      casts only where the linears saved them (no recompute);
 *   C  the last layer's backward: every gradient, one layer's
 *      activations (recomputed under full recompute) and weight casts;
 *   D  the optimizer step: every gradient and the optimizer's
 *      temporaries (eager_memory optimizer_temp_states).
 * The logits the model output holds (held_bytes) stay in C and D.
 *
 * The caching allocator's reservation (what max_memory_reserved reads) is
 * the larger of the steady step's phases, with the fragmentation margin,
 * and the first step's phases (no states before its optimizer step; its
 * segments cut to its requests, so no margin) plus the loss chain's fp32
 * blocks reserved anew from the second step: the first step's states are
 * placed by best fit into the blocks its chain freed (campaign 7's
 * allocator trace, models/validation/framework/mem_trace.py).
 *
 * Saved activations per layer and token, from the elementwise
 * implementation's kept_* figures (frameworks.json, counted from the
 * model's code and autograd's saved tensors): two norms (kept_norm each
 * per hidden element), an autocast cast of the norm output per linear
 * reading it (kept_cast: q, k, v and gate, up; one each when fused), the
 * fused attention kernel's q, k, v and output at the activation dtype and
 * its fp32 log-sum-exp per head, the gated MLP (kept_act per FFN
 * element); under full recompute (HF gradient_checkpointing: each decoder
 * layer) the layer's input in the residual stream's dtype (fp32 under
 * autocast over fp32 parameters).
 *
 * Under FSDP2 (ZeRO-3 with fsdp2_copies) the caching allocator's pools
 * per stream add to the compute stream's peak (c10/cuda/
 * CUDACachingAllocator.cpp: a freed block is reused only on its stream):
 * the sharded gradients are the reduce-scatter outputs, allocated on the
 * reduce-scatter stream, so their blocks stay reserved there after
 * zero_grad while the next forward peaks; the all-gather's cast shards and
 * output, on the copy-in stream, for two consecutive groups (the root's,
 * held unsharded through the step, and a layer's). The fragmentation
 * margin (kernels.json activation_memory_margin) applies to the
 * activations and buffers of the phase, as in memory.c.
 *
 * It covers what the eager model's figures describe: dense SwiGLU layers
 * with a fused attention kernel on one tensor- and context-parallel rank,
 * full training in bf16 or fp16; pp_memory_eager says whether a scenario
 * is such, and memory.c falls back to its own accounting elsewhere (a
 * search over layouts so compares a tensor-parallel layout's sum with the
 * phases of one without).
 */
#ifndef PP_MEMEAGER_H
#define PP_MEMEAGER_H

#include "engine/predict.h"
#include "engine/workload.h"

/* Whether the scenario's memory is the eager model's (see above). */
bool pp_memory_eager(const pp_scenario *s, const pp_workload *w);

/* Pipeline stage st's bytes per GPU at its largest phase, into *out (the
 * breakdown of that phase and its name, peak_phase; capacity, fits and
 * worst_stage untouched). */
void pp_memory_eager_stage(const pp_scenario *s, const pp_hw *hw, const pp_workload *w, int st,
			   pp_memory *out);

#endif
