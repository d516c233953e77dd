/*
 * stream.h - waiting on CUDA streams with a deadline, and event timing:
 * the helpers every GPU measurement (and, later, the step replay) shares.
 */
#ifndef PP_CAL_STREAM_H
#define PP_CAL_STREAM_H

#include "core/pp.h"
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdbool.h>

/* Wait until every stream is idle, polling (nccl-tests'
 * testStreamSynchronize): an NCCL asynchronous error on a communicator, or
 * timeout_s passing, aborts the communicators (comms may be NULL or hold
 * NULLs) and fails with a message naming `what`. */
int pp_streams_wait(cudaStream_t *streams, int n, ncclComm_t *comms, double timeout_s,
		    const char *what, pp_err *err);

/* Events recorded on one stream: ev[0..n). */
typedef struct pp_evtrain {
	int dev;
	int n;
	cudaEvent_t *ev;
} pp_evtrain;

int pp_evtrain_init(pp_evtrain *t, int dev, int n, pp_err *err);
void pp_evtrain_release(pp_evtrain *t);
/* Seconds between ev[i] and ev[i + 1] (both complete). */
int pp_evtrain_gap(const pp_evtrain *t, int i, double *s, pp_err *err);

#endif
