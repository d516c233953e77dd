/* replaycount.c - see replaycount.h. */
#include "calib/replaycount.h"

#include <string.h>

/* The bytes of one GEMM output element: fp8 GEMMs write bf16 (an
 * operand's is pp_dtype_bytes). */
static double out_bytes(pp_dtype dt)
{
	return dt == PP_DT_FP8 || dt == PP_DT_BF16 || dt == PP_DT_FP16 ? 2 : 4;
}

void pp_rplan_maxima(const pp_rplan *p, int gpu, pp_rplan_max *m)
{
	memset(m, 0, sizeof(*m));
	const pp_rgpu *g = &p->gpu[gpu];
	for (int i = 0; i < g->nins; i++) {
		const pp_rinstr *r = &g->ins[i];
		double v;
		switch (r->kind) {
		case PP_RI_GEMM: {
			const pp_rgemm *q = &p->gemms[r->arg];
			double bt = (double)q->batch;
			v = bt * q->m * q->k * pp_dtype_bytes(q->dtype);
			m->gemm_a = v > m->gemm_a ? v : m->gemm_a;
			v = bt * q->k * q->n * pp_dtype_bytes(q->dtype);
			m->gemm_b = v > m->gemm_b ? v : m->gemm_b;
			v = bt * q->m * q->n * out_bytes(q->dtype);
			m->gemm_d = v > m->gemm_d ? v : m->gemm_d;
			break;
		}
		case PP_RI_MEM:
			v = r->bytes / 2;
			m->mem = v > m->mem ? v : m->mem;
			break;
		case PP_RI_COLL:
		case PP_RI_SEND:
		case PP_RI_RECV:
			m->coll[r->stream] = r->bytes > m->coll[r->stream] ? r->bytes : m->coll[r->stream];
			break;
		default:
			break;
		}
	}
}

void pp_rplan_count(const pp_rplan *p, int gpu, pp_rplan_counts *c)
{
	memset(c, 0, sizeof(*c));
	const pp_rgpu *g = &p->gpu[gpu];
	for (int i = 0; i < g->nins; i++) {
		const pp_rinstr *r = &g->ins[i];
		switch (r->kind) {
		case PP_RI_GEMM: {
			const pp_rgemm *q = &p->gemms[r->arg];
			c->gemms++;
			c->gemm_flops += 2.0 * q->m * q->n * q->k * q->batch;
			break;
		}
		case PP_RI_MEM:
			c->mems++;
			c->mem_bytes += r->bytes;
			break;
		case PP_RI_COLL:
			c->colls++;
			c->coll_bytes[r->stream] += r->bytes;
			break;
		case PP_RI_SEND:
			c->sends++;
			c->p2p_bytes += r->bytes;
			break;
		case PP_RI_RECV: c->recvs++; break;
		case PP_RI_RECORD: c->records++; break;
		case PP_RI_WAIT: c->waits++; break;
		default: break;
		}
	}
}

