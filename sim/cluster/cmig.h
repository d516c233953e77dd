/*
 * cmig.h - NVIDIA Multi-Instance GPU (MIG) profiles and their fixed
 * placements, for node types that declare "mig" in the cluster spec and
 * jobs that ask for a mig_profile.
 *
 * Model (NVIDIA MIG User Guide, "Supported MIG Profiles",
 * https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html,
 * and NVML's nvmlGpuInstancePlacement_t): a GPU has 8 memory slices and 7
 * compute slices. A GPU instance of a profile occupies `mem` consecutive
 * memory slices from a start the profile allows ("Creation of new GPU
 * instance will fail if there is overlap with the already occupied memory
 * slices") and `compute` compute slices. The guide's tables give each
 * profile's fraction of memory (mem / 8), of SMs (compute / 7) and its
 * "Number of Instances Available" n; the starts are the first n multiples
 * of mem, as its placement diagrams draw them (A100: 1g.5gb at 0..6,
 * 2g.10gb at 0, 2, 4, 3g.20gb at 0 and 4, 4g.20gb and 7g.40gb at 0).
 * The compute slices of a GPU's instances add up to at most 7.
 */
#ifndef PP_CMIG_H
#define PP_CMIG_H

#include <stdbool.h>
#include <stdint.h>

#define PP_MIG_MEM_SLICES 8
#define PP_MIG_COMPUTE_SLICES 7

typedef struct pp_mig_profile {
	const char *name;   /* "3g.40gb" */
	int compute, mem;   /* slices */
	int instances;      /* the guide's "Number of Instances Available" */
} pp_mig_profile;

/* The GPU named (case-insensitive: "A100-SXM4-40GB", "A100-SXM4-80GB",
 * "H100-80GB"; "A100-40GB", "A100-80GB", "H100" too), or -1. */
int pp_mig_gpu(const char *name);
const char *pp_mig_gpu_name(int gpu);
/* The names pp_mig_gpu() takes, for messages: "A100-SXM4-40GB, ..." */
const char *pp_mig_gpu_list(void);
/* Profile "Ng.Mgb" on that GPU, or NULL. */
const pp_mig_profile *pp_mig_find(int gpu, int compute, int mem_gb);

/* One GPU in MIG mode: the memory slices its instances hold (bit i: slice
 * i) and the compute slices they use. */
typedef struct pp_mig_state {
	uint8_t mem_used;
	uint8_t compute_used;
} pp_mig_state;

/* The lowest start where p fits on st, or -1. */
int pp_mig_fit(const pp_mig_state *st, const pp_mig_profile *p);
void pp_mig_take(pp_mig_state *st, const pp_mig_profile *p, int start);
void pp_mig_give(pp_mig_state *st, const pp_mig_profile *p, int start);

/* "3g.40gb" -> compute 3, mem_gb 40; false when it is not of that form */
bool pp_mig_parse(const char *s, int *compute, int *mem_gb);

#endif
