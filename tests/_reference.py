"""Independent brute-force references for the clustering metrics.

Everything here works from the definitions on explicit sets of records and
pairs, in O(n^2) or worse, sharing no code with ereval.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Iterator

import numpy as np
from scipy.optimize import linear_sum_assignment

Clustering = dict[object, object]  # record -> cluster


def clusters_of(m: Clustering) -> list[frozenset[object]]:
    groups: dict[object, set[object]] = defaultdict(set)
    for rec, cl in m.items():
        groups[cl].add(rec)
    return [frozenset(g) for g in groups.values()]


def pairs_of(m: Clustering) -> set[frozenset[object]]:
    out = set()
    for g in clusters_of(m):
        for x, y in itertools.combinations(sorted(g, key=repr), 2):
            out.add(frozenset((x, y)))
    return out


def div(a: float, b: float) -> float:
    return math.nan if b == 0 else a / b


def coref_div(a: float, b: float) -> float:
    return 0.0 if b == 0 else a / b


def f1(p: float, r: float) -> float:
    if math.isnan(p) or math.isnan(r):
        return math.nan
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def pairwise(t: Clustering, p: Clustering) -> tuple[float, float]:
    tp_, pp_ = pairs_of(t), pairs_of(p)
    both = tp_ & pp_
    return div(len(both), len(pp_)), div(len(both), len(tp_))


def cluster_pr(t: Clustering, p: Clustering) -> tuple[float, float]:
    tc, pc = set(clusters_of(t)), set(clusters_of(p))
    m = len(tc & pc)
    return m / len(pc), m / len(tc)


def closest_cluster(t: Clustering, p: Clustering) -> tuple[float, float]:
    tc, pc = clusters_of(t), clusters_of(p)

    def jac(x: frozenset[object], y: frozenset[object]) -> float:
        return len(x & y) / len(x | y)

    prec = sum(max(jac(r, s) for s in tc) for r in pc) / len(pc)
    rec = sum(max(jac(s, r) for r in pc) for s in tc) / len(tc)
    return prec, rec


def muc(t: Clustering, p: Clustering) -> tuple[float, float]:
    """Vilain et al.: partitions, with records missing from the other side as singletons."""

    def side(a: Clustering, b: Clustering) -> tuple[int, int]:
        num = den = 0
        for g in clusters_of(a):
            parts = set()
            for rec in g:
                parts.add(("c", b[rec]) if rec in b else ("s", rec))
            num += len(g) - len(parts)
            den += len(g) - 1
        return num, den

    nr, dr = side(t, p)
    np_, dp = side(p, t)
    return coref_div(np_, dp), coref_div(nr, dr)


def b3(t: Clustering, p: Clustering) -> tuple[float, float]:
    tg = {rec: g for g in clusters_of(t) for rec in g}
    pg = {rec: g for g in clusters_of(p) for rec in g}
    prec = sum(len(pg[r] & tg.get(r, frozenset())) / len(pg[r]) for r in p)
    rec = sum(len(tg[r] & pg.get(r, frozenset())) / len(tg[r]) for r in t)
    return coref_div(prec, len(p)), coref_div(rec, len(t))


def b3_entity(t: Clustering, p: Clustering) -> tuple[float, float]:
    pg = {rec: g for g in clusters_of(p) for rec in g}
    tc = clusters_of(t)
    prec = sum(sum(len(g & pg[r]) / len(pg[r]) for r in g) / len(g) for g in tc) / len(tc)
    rec = sum(sum(len(g & pg[r]) / len(g) for r in g) / len(g) for g in tc) / len(tc)
    return prec, rec


def ceaf(t: Clustering, p: Clustering, phi: int) -> tuple[float, float]:
    """Dense Hungarian assignment on the full similarity matrix."""
    tc, pc = clusters_of(t), clusters_of(p)

    def sim(x: frozenset[object], y: frozenset[object]) -> float:
        inter = len(x & y)
        if phi == 1:
            return float(x == y)
        if phi == 2:
            return float(inter > 0)
        if phi == 3:
            return float(inter)
        return 2 * inter / (len(x) + len(y))

    mat = np.array([[sim(x, y) for y in pc] for x in tc])
    ri, ci = linear_sum_assignment(mat, maximize=True)
    total = float(mat[ri, ci].sum())
    self_t = sum(sim(x, x) for x in tc)
    self_p = sum(sim(y, y) for y in pc)
    return coref_div(total, self_p), coref_div(total, self_t)


def alignments(
    tc: list[frozenset[object]], pc: list[frozenset[object]]
) -> Iterator[list[tuple[int, int]]]:
    """Every one-to-one alignment of true to predicted clusters that pairs only
    clusters sharing a record, as lists of (true index, predicted index)."""

    def extend(i: int, used: frozenset[int]) -> Iterator[list[tuple[int, int]]]:
        if i == len(tc):
            yield []
            return
        yield from extend(i + 1, used)  # true cluster i left unaligned
        for j, q in enumerate(pc):
            if j not in used and tc[i] & q:
                for rest in extend(i + 1, used | {j}):
                    yield [(i, j), *rest]

    yield from extend(0, frozenset())


def ace(t: Clustering, p: Clustering) -> tuple[float, float, int]:
    """ACE: enumerate the alignments, keep the largest overlap, then the most pairs;
    precision = pairs / #predicted, recall = pairs / #true. Also returns the overlap."""
    tc, pc = clusters_of(t), clusters_of(p)
    overlap, pairs = max(
        (sum(len(tc[i] & pc[j]) for i, j in a), len(a)) for a in alignments(tc, pc)
    )
    return div(pairs, len(pc)), div(pairs, len(tc)), overlap


def ceaf_rn(t: Clustering, p: Clustering) -> tuple[float, float]:
    """Rahman & Ng: drop predicted records absent from the truth that are alone in
    their predicted cluster, then mention-based CEAF by enumerating alignments."""
    sizes = Counter(p.values())
    kept = {r: c for r, c in p.items() if r in t or sizes[c] > 1}
    tc, pc = clusters_of(t), clusters_of(kept)
    phi = max(sum(len(tc[i] & pc[j]) for i, j in a) for a in alignments(tc, pc))
    return coref_div(phi, len(kept)), coref_div(phi, len(t))


def blanc(t: Clustering, p: Clustering) -> tuple[float, float, float]:
    def links(m: Clustering) -> tuple[set[frozenset[object]], set[frozenset[object]]]:
        recs = sorted(m, key=repr)
        c, n = set(), set()
        for x, y in itertools.combinations(recs, 2):
            (c if m[x] == m[y] else n).add(frozenset((x, y)))
        return c, n

    ck, nk = links(t)
    cr, nr = links(p)
    rc, pc_ = coref_div(len(ck & cr), len(ck)), coref_div(len(ck & cr), len(cr))
    rn, pn = coref_div(len(nk & nr), len(nk)), coref_div(len(nk & nr), len(nr))
    fc = 0.0 if rc + pc_ == 0 else 2 * rc * pc_ / (rc + pc_)
    fn = 0.0 if rn + pn == 0 else 2 * rn * pn / (rn + pn)
    if not ck and not nk:
        return 0.0, 0.0, 0.0
    if not ck:
        return pn, rn, fn
    if not nk:
        return pc_, rc, fc
    return (pc_ + pn) / 2, (rc + rn) / 2, (fc + fn) / 2


def lea(t: Clustering, p: Clustering) -> tuple[float, float]:
    def side(a: Clustering, b: Clustering) -> tuple[float, int]:
        num = 0.0
        bg = {rec: g for g in clusters_of(b) for rec in g}
        for g in clusters_of(a):
            if len(g) == 1:
                (rec,) = tuple(g)
                resolved = 1.0 if rec in bg and len(bg[rec]) == 1 else 0.0
                num += resolved
            else:
                links = list(itertools.combinations(sorted(g, key=repr), 2))
                ok = sum(1 for x, y in links if x in b and y in b and b[x] == b[y])
                num += len(g) * ok / len(links)
        return num, len(a)

    nr, dr = side(t, p)
    np_, dp = side(p, t)
    return coref_div(np_, dp), coref_div(nr, dr)


def pair_confusion(t: Clustering, p: Clustering) -> tuple[int, int, int, int]:
    recs = sorted(t, key=repr)
    tp = fp = fn = tn = 0
    for x, y in itertools.combinations(recs, 2):
        st, sp = t[x] == t[y], p[x] == p[y]
        tp += st and sp
        fp += sp and not st
        fn += st and not sp
        tn += not st and not sp
    return tp, fp, fn, tn


def bmd(t: Clustering, p: Clustering) -> int:
    """Split every predicted cluster into its pieces, then merge each true cluster's pieces."""
    pieces = {(t[r], p[r]) for r in t}
    n_pred = len({p[r] for r in t})
    n_true = len({t[r] for r in t})
    return (len(pieces) - n_pred) + (len(pieces) - n_true)


def entropy_terms(t: Clustering, p: Clustering) -> tuple[float, float, float, float]:
    n = len(t)
    joint: dict[tuple[object, object], int] = defaultdict(int)
    ct: dict[object, int] = defaultdict(int)
    cp: dict[object, int] = defaultdict(int)
    for r in t:
        joint[(t[r], p[r])] += 1
        ct[t[r]] += 1
        cp[p[r]] += 1
    h_t = -sum(c / n * math.log(c / n) for c in ct.values())
    h_p = -sum(c / n * math.log(c / n) for c in cp.values())
    h_tp = -sum(c / n * math.log(c / cp[k[1]]) for k, c in joint.items())
    h_pt = -sum(c / n * math.log(c / ct[k[0]]) for k, c in joint.items())
    return h_t, h_p, h_tp, h_pt


def _mention_b3(
    key: Clustering, response: Clustering, *, twin_key: str, twin_response: str
) -> tuple[float, float]:
    """B-cubed mention by mention, with a rule for twinless mentions on each side:
    ``"zero"`` (the mention scores 0), ``"self"`` (it scores ``1 / |its cluster|``)."""
    kg = {rec: g for g in clusters_of(key) for rec in g}
    rg = {rec: g for g in clusters_of(response) for rec in g}

    def score(
        rec: object,
        own: dict[object, frozenset[object]],
        other: dict[object, frozenset[object]],
        rule: str,
    ) -> float:
        if rec in other:
            return len(own[rec] & other[rec]) / len(own[rec])
        return 0.0 if rule == "zero" else 1 / len(own[rec])

    prec = sum(score(r, rg, kg, twin_response) for r in response)
    rec = sum(score(r, kg, rg, twin_key) for r in key)
    return coref_div(prec, len(response)), coref_div(rec, len(key))


def _drop(response: Clustering, key: Clustering, *, singletons_only: bool) -> Clustering:
    sizes = Counter(response.values())
    return {r: c for r, c in response.items() if r in key or (singletons_only and sizes[c] > 1)}


def b3_all(t: Clustering, p: Clustering) -> tuple[float, float]:
    """Stoyanov et al.: every twinless mention kept, scoring 1 / |its own cluster|."""
    return _mention_b3(t, p, twin_key="self", twin_response="self")


def b3_0(t: Clustering, p: Clustering) -> tuple[float, float]:
    """Stoyanov et al.: twinless response mentions discarded; twinless key mentions score 0."""
    return _mention_b3(t, _drop(p, t, singletons_only=False), twin_key="zero", twin_response="zero")


def b3_rn(t: Clustering, p: Clustering) -> tuple[float, float]:
    """Rahman & Ng: twinless singleton response mentions discarded, then B-cubed."""
    return _mention_b3(t, _drop(p, t, singletons_only=True), twin_key="zero", twin_response="zero")


def sys_sides(
    t: Clustering, p: Clustering
) -> tuple[tuple[Clustering, Clustering], tuple[Clustering, Clustering]]:
    """Cai & Strube's ``_sys`` rewrites: ((key, response) for precision, for recall).

    Twinless key mentions join the response as singletons and twinless singleton
    response mentions are discarded; for precision the remaining twinless
    response mentions join the key as singletons, for recall they are discarded."""
    added = {r: ("key-twin", r) for r in t if r not in p}
    response_p = {**_drop(p, t, singletons_only=True), **added}
    key_p = {**t, **{r: ("response-twin", r) for r in response_p if r not in t}}
    response_r = {**_drop(p, t, singletons_only=False), **added}
    return (key_p, response_p), (dict(t), response_r)


def b3_sys(t: Clustering, p: Clustering) -> tuple[float, float]:
    (kp, rp), (kr, rr) = sys_sides(t, p)
    return b3(kp, rp)[0], b3(kr, rr)[1]


def ceaf_m(t: Clustering, p: Clustering) -> tuple[float, float]:
    """Mention-based CEAF by enumerating every alignment (CoNLL denominators)."""
    tc, pc = clusters_of(t), clusters_of(p)
    phi = max(sum(len(tc[i] & pc[j]) for i, j in a) for a in alignments(tc, pc))
    return coref_div(phi, len(p)), coref_div(phi, len(t))


def ceaf_e(t: Clustering, p: Clustering) -> tuple[float, float]:
    """Entity-based CEAF (phi4) by enumerating every alignment."""
    tc, pc = clusters_of(t), clusters_of(p)
    phi = max(
        sum(2 * len(tc[i] & pc[j]) / (len(tc[i]) + len(pc[j])) for i, j in a)
        for a in alignments(tc, pc)
    )
    return coref_div(phi, len(pc)), coref_div(phi, len(tc))


def ceaf_sys(t: Clustering, p: Clustering) -> tuple[float, float]:
    (kp, rp), (kr, rr) = sys_sides(t, p)
    return ceaf_m(kp, rp)[0], ceaf_m(kr, rr)[1]


def cone(t: Clustering, p: Clustering) -> dict[str, tuple[float, float]]:
    """CONE (Lin et al. 2010): the prediction cut down to the records the truth lists,
    then B-cubed and CEAF (phi3, phi4) on them."""
    kept = {r: c for r, c in p.items() if r in t}
    return {"cone_b3": b3(t, kept), "cone_ceafm": ceaf_m(t, kept), "cone_ceafe": ceaf_e(t, kept)}
