/* stream.c - see stream.h. */
#include "stream.h"
#include "cudacheck.h"
#include "core/util.h"

#include <sched.h>
#include <stdlib.h>

int pp_streams_wait(cudaStream_t *streams, int n, ncclComm_t *comms, double timeout_s,
		    const char *what, pp_err *err)
{
	int rc = 0, left = n;
	bool done[64] = {false};
	double t0 = pp_mono_s();
	while (left > 0) {
		bool idle = true;
		for (int i = 0; i < n; i++) {
			if (done[i])
				continue;
			cudaError_t e = cudaStreamQuery(streams[i]);
			if (e == cudaSuccess) {
				done[i] = true;
				left--;
				idle = false;
				continue;
			}
			if (e != cudaErrorNotReady)
				CUDA_TRY(e);
			if (comms && comms[i]) {
				ncclResult_t ae = ncclSuccess;
				NCCL_TRY(ncclCommGetAsyncError(comms[i], &ae));
				if (ae != ncclSuccess && ae != ncclInProgress) {
					for (int k = 0; k < n; k++)
						if (comms[k])
							ncclCommAbort(comms[k]);
					rc = pp_errf(err, PP_EIO, "%s: NCCL asynchronous error on rank %d: %s",
						     what, i, ncclGetErrorString(ae));
					goto out;
				}
			}
		}
		if (left && pp_mono_s() - t0 > timeout_s) {
			for (int k = 0; comms && k < n; k++)
				if (comms[k])
					ncclCommAbort(comms[k]);
			rc = pp_errf(err, PP_EIO, "%s did not complete within %.0f s: a hang (a peer that "
				     "never joined, a dead link, a deadlocked NCCL transport); rerun with "
				     "NCCL_DEBUG=INFO, or raise --timeout for very slow fabrics", what,
				     timeout_s);
			goto out;
		}
		if (idle)
			sched_yield();
	}
out:
	return rc;
}

int pp_evtrain_init(pp_evtrain *t, int dev, int n, pp_err *err)
{
	int rc = 0;
	t->dev = dev;
	t->n = 0;
	t->ev = pp_xcalloc((size_t)n, sizeof(*t->ev));
	CUDA_TRY(cudaSetDevice(dev));
	for (int i = 0; i < n; i++) {
		CUDA_TRY(cudaEventCreate(&t->ev[i]));
		t->n++;
	}
out:
	return rc;
}

void pp_evtrain_release(pp_evtrain *t)
{
	if (!t->ev)
		return;
	cudaSetDevice(t->dev);
	for (int i = 0; i < t->n; i++)
		cudaEventDestroy(t->ev[i]);
	free(t->ev);
	t->ev = NULL;
	t->n = 0;
}

int pp_evtrain_gap(const pp_evtrain *t, int i, double *s, pp_err *err)
{
	int rc = 0;
	float ms = 0;
	CUDA_TRY(cudaEventElapsedTime(&ms, t->ev[i], t->ev[i + 1]));
	*s = ms * 1e-3;
out:
	return rc;
}
