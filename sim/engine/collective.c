/* collective.c - see collective.h. */
#include "engine/collective.h"

#include <math.h>

double pp_coll_busbw_factor(pp_coll op, int n)
{
	if (n <= 1)
		return 0;
	switch (op) {
	case PP_COLL_ALL_REDUCE: return 2.0 * (n - 1) / n;
	case PP_COLL_ALL_GATHER:
	case PP_COLL_REDUCE_SCATTER:
	case PP_COLL_ALL_TO_ALL: return (double)(n - 1) / n;
	default: return 1.0;
	}
}

static int domains_of(pp_group g)
{
	int per = g.per_node < 1 ? 1 : g.per_node;
	return (g.n + per - 1) / per;
}

double pp_coll_busbw(const pp_hw *hw, pp_group g)
{
	int nodes = domains_of(g);
	double bw = INFINITY;
	if (g.per_node > 1)
		bw = hw->intra_Bps;
	if (nodes > 1) {
		/* each member owns nics_per_node/gpus_per_node of its node's NICs
		 * (one NIC per GPU on an HGX board or an NVL72 tray) */
		double share = (double)g.per_node / hw->gpus_per_node;
		double inter = hw->nic_Bps * hw->nics_per_node * share / hw->oversubscription;
		/* a ring crosses each node boundary on every channel: the slowest
		 * link of the ring sets busbw */
		if (inter < bw)
			bw = inter;
	}
	return bw;
}

static const pp_coll_fit *find_fit(const pp_hw *hw, pp_coll op, pp_scope scope, int n)
{
	const pp_coll_fit *best = NULL;
	for (int i = 0; i < hw->nfits; i++) {
		const pp_coll_fit *f = &hw->fits[i];
		if (f->op != op || f->scope != scope)
			continue;
		if (f->nranks == n)
			return f;
	}
	return best;
}

/* The piece of f that covers bytes: the first whose upper end is above
 * it, else the last. */
static int fit_piece(const pp_coll_fit *f, double bytes)
{
	for (int i = 0; i < f->npieces; i++)
		if (bytes < f->piece[i].hi_bytes || i == f->npieces - 1)
			return i;
	return 0;
}

static double fit_time(const pp_coll_fit *f, int piece, double bytes, double factor)
{
	return f->piece[piece].alpha_s + bytes * factor / f->piece[piece].busbw_Bps;
}

const pp_coll_fit *pp_coll_fit_used(const pp_hw *hw, pp_coll op, double bytes, pp_group g,
				    int *piece)
{
	*piece = -1;
	if (g.n <= 1 || bytes <= 0)
		return NULL;
	pp_scope scope = domains_of(g) > 1 ? PP_SCOPE_INTER : PP_SCOPE_INTRA;
	const pp_coll_fit *fit = find_fit(hw, op, scope, g.n);
	if (fit)
		*piece = fit_piece(fit, bytes);
	return fit;
}

const pp_coll_fit *pp_p2p_fit_used(const pp_hw *hw, double bytes, bool same_node, int *piece)
{
	*piece = -1;
	if (bytes <= 0)
		return NULL;
	/* a calibrated send/recv between two GPUs of this scope */
	const pp_coll_fit *fit = find_fit(hw, PP_COLL_SENDRECV, same_node ? PP_SCOPE_INTRA
								 : PP_SCOPE_INTER, 2);
	if (fit)
		*piece = fit_piece(fit, bytes);
	return fit;
}

/* The published all_reduce busbw at this message size (log-size linear
 * interpolation; latency-bound below the first point, flat above the last). */
static double curve_busbw(const pp_hw *hw, double bytes)
{
	int n = hw->intra_ncurve;
	const double *x = hw->intra_curve_bytes, *y = hw->intra_curve_Bps;
	if (bytes <= x[0])
		return y[0] * bytes / x[0];
	if (bytes >= x[n - 1])
		return y[n - 1];
	int i = 1;
	while (x[i] < bytes)
		i++;
	double f = (log(bytes) - log(x[i - 1])) / (log(x[i]) - log(x[i - 1]));
	return y[i - 1] + f * (y[i] - y[i - 1]);
}

/* An all-to-all across nodes: each rank sends bytes / n to every peer
 * (nccl-tests' size is the per-rank buffer) over grouped point-to-point
 * sends. The peers in its node are reached over NVLink/PCIe; the others
 * through this GPU's own NIC: NCCL's all-to-all cannot spread one GPU's
 * traffic over several NICs (nccl-tests#267: expect single-NIC rates,
 * ~48-49 GB/s on a 400G CX-7), so the rail share of the node's NICs is the
 * rate. Both run at once; the slower sets the time. */
static double alltoall_inter(const pp_hw *hw, double bytes, pp_group g, int nodes)
{
	double per = g.per_node < 1 ? 1 : g.per_node;
	double nic = hw->nic_Bps * hw->nics_per_node / hw->gpus_per_node / hw->oversubscription;
	if (nic > hw->nic_Bps)
		nic = hw->nic_Bps;
	double t_inter = bytes * (g.n - per) / g.n / nic;
	double t_intra = per > 1 ? bytes * (per - 1) / g.n / hw->intra_Bps : 0;
	double lat = hw->coll_launch_s + (double)(nodes - 1) * hw->inter_lat_s + (per - 1) * hw->intra_lat_s;
	return lat + (t_inter > t_intra ? t_inter : t_intra);
}

double pp_coll_nvls_time(const pp_hw *hw, double bytes, pp_group g)
{
	if (hw->nvls_algbw_ratio <= 0 || g.n <= 1 || bytes <= 0 || domains_of(g) > 1)
		return 0;
	/* NCCL (tuning.cc v2.27.7-1 L267-274, L322-326, L367-369): NVLS
	 * all_reduce moves the buffer at 5/6 of the NVLink bandwidth its ring
	 * sees, whatever the number of ranks, after one NVLS latency */
	return hw->coll_launch_s + hw->nvls_lat_s + bytes / (hw->nvls_algbw_ratio * hw->intra_Bps);
}

const char *pp_coll_algorithm(const pp_hw *hw, pp_coll op, double bytes, pp_group g)
{
	int piece;
	if (g.n <= 1 || bytes <= 0)
		return "none";
	if (pp_coll_fit_used(hw, op, bytes, g, &piece))
		return "calibration";
	double nv = op == PP_COLL_ALL_REDUCE ? pp_coll_nvls_time(hw, bytes, g) : 0;
	if (nv <= 0)
		return domains_of(g) > 1 && op == PP_COLL_ALL_REDUCE ? "ring/tree" : "ring";
	if (hw->intra_ncurve && hw->intra_curve_nvls)
		return "nvls (measured curve)";
	return nv <= pp_coll_time(hw, op, bytes, g) ? "nvls" : "ring";
}

double pp_coll_time(const pp_hw *hw, pp_coll op, double bytes, pp_group g)
{
	if (g.n <= 1 || bytes <= 0)
		return 0;
	double factor = pp_coll_busbw_factor(op, g.n);
	int nodes = domains_of(g), piece;
	const pp_coll_fit *fit = pp_coll_fit_used(hw, op, bytes, g, &piece);
	if (fit)
		return fit_time(fit, piece, bytes, factor);
	if (op == PP_COLL_ALL_TO_ALL && nodes > 1)
		return alltoall_inter(hw, bytes, g, nodes);
	double bw = pp_coll_busbw(hw, g);
	if (hw->intra_ncurve && g.per_node > 1) {
		/* measured busbw against size inside a node: all_reduce as
		 * published, other collectives with the same shape scaled to the
		 * ring asymptote of the fabric; an all_reduce curve measured with
		 * NVLS is NCCL's own choice where NVLS is on, and is scaled to the
		 * ring as well where the scenario turns NVLS off */
		double cb = curve_busbw(hw, bytes);
		if (op != PP_COLL_ALL_REDUCE || (hw->intra_curve_nvls && hw->nvls_algbw_ratio <= 0))
			cb *= hw->intra_Bps / hw->intra_curve_Bps[hw->intra_ncurve - 1];
		if (nodes == 1)
			return bytes * factor / cb;
		if (cb < bw)
			bw = cb;
	}
	/* per-step latency of a ring: intra-node hops at NVLink/PCIe latency,
	 * node-crossing hops at the NIC fabric's */
	double hop = nodes > 1 ? ((double)(g.per_node - 1) * hw->intra_lat_s + hw->inter_lat_s) /
					 g.per_node
			       : hw->intra_lat_s;
	double steps;
	switch (op) {
	case PP_COLL_ALL_REDUCE: steps = 2.0 * (g.n - 1); break;
	case PP_COLL_BROADCAST: steps = g.n - 1; break;
	case PP_COLL_SENDRECV: steps = 1; break;
	default: steps = g.n - 1; break;
	}
	double ring = hw->coll_launch_s + steps * hop + bytes * factor / bw;
	if (op == PP_COLL_ALL_REDUCE && nodes == 1) {
		double nv = pp_coll_nvls_time(hw, bytes, g);
		return nv > 0 && nv < ring ? nv : ring;
	}
	if (op != PP_COLL_ALL_REDUCE || nodes <= 2)
		return ring;
	/* double binary tree across nodes, chain inside: latency grows with
	 * log2(nodes); NCCL's tree reaches about the ring's busbw at large sizes */
	double tree_lat = 2.0 * (log2((double)nodes) * hw->inter_lat_s +
				 (g.per_node - 1) * hw->intra_lat_s);
	double tree = hw->coll_launch_s + tree_lat + bytes * factor / bw;
	return tree < ring ? tree : ring;
}

double pp_p2p_time(const pp_hw *hw, double bytes, bool same_node)
{
	if (bytes <= 0)
		return 0;
	int piece;
	const pp_coll_fit *fit = pp_p2p_fit_used(hw, bytes, same_node, &piece);
	if (fit)
		return fit_time(fit, piece, bytes, 1.0);
	if (same_node)
		return hw->coll_launch_s + hw->intra_lat_s + bytes / hw->intra_Bps;
	double bw = hw->nic_Bps * hw->nics_per_node / hw->gpus_per_node / hw->oversubscription;
	if (bw > hw->nic_Bps)
		bw = hw->nic_Bps;
	return hw->coll_launch_s + hw->inter_lat_s + bytes / bw;
}

pp_group pp_group_place(int n, int stride, int domain)
{
	pp_group g = {n, 1};
	if (stride < domain) {
		int fit = domain / stride;
		g.per_node = n < fit ? n : fit;
	}
	return g;
}
