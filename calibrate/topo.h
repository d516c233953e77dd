/*
 * topo.h - the provenance of a calibration: GPU-to-GPU links (as
 * nvidia-smi topo -m shows them), the NICs NCCL could use, versions of the
 * driver, CUDA and NCCL, host name, cores and memory.
 *
 * Links come from NVML, loaded at run time (libnvidia-ml.so.1; nothing to
 * link against): each active NVLink and what is at its far end, a GPU
 * (direct "NV#") or an NVSwitch (every switch-attached pair "NV#", # the
 * smaller of the two GPUs' switch links). Without NVML, CUDA's peer
 * attributes give "P2P" or "SYS" (no peer access). The raw `nvidia-smi topo
 * -m` text is kept too when the tool is there.
 */
#ifndef PP_CAL_TOPO_H
#define PP_CAL_TOPO_H

#include "backend.h"
#include "core/util.h"

/* One GPU of the job as the rank driving it sees it. */
typedef struct pp_cal_gpu_desc {
	int rank;
	char host[64];
	int device;            /* CUDA index on its host */
	char pci[32];          /* "0000:18:00.0" */
	char name[96];
	int64_t mem_bytes;
	int sm_count;
	int cc_major, cc_minor;
	int clock_khz, mem_clock_khz;
	int nvlinks;           /* active NVLink links (NVML), -1 unknown */
} pp_cal_gpu_desc;

/* Describe the local CUDA device dev as rank `rank`. */
int pp_cal_gpu_describe(int dev, int rank, pp_cal_gpu_desc *d, pp_err *err);

/* Fill h (host, versions, cores, memory, links, NICs, topology_json) for
 * the job's GPUs (gpus[0..n), rank order). Link details are known for the
 * GPUs on this host; pairs on different hosts are "NET". */
int pp_cal_topology(const pp_cal_gpu_desc *gpus, int n, pp_cal_host *h, pp_err *err);

#endif
