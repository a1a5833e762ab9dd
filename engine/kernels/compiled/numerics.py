"""Vectorised exp, log and digamma, a BLAS matrix product, a vector copy and a finiteness test for numba kernels.

numba compiles ``math.exp`` and a digamma written with ``math.log`` to one
scalar library call per value, which do not vectorise; the versions here are
written as straight-line polynomials over whole arrays, which LLVM turns into
vector instructions (exp to 3e-16 relative in float64 and float32's own
precision in float32; digamma to ~1e-16 absolute).  ``gemm`` calls scipy's
BLAS xgemm on strided row-major views from inside a kernel, through numba's
own binding (``numba.np.linalg._BLAS``, a private helper: a future numba may
move it).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba.extending import overload
from numba.np.linalg import _BLAS, get_blas_kind
from numba.np.numpy_support import as_dtype

from engine.kernels.flags import EXP_DIGAMMA

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 split in two for an exact range reduction
_LN2_LO = 1.90821492927058770002e-10


def gemm(transa, transb, M, N, depth, A, lda, B, ldb, beta, C, ldc):
    """Row-major C (M x N) <- op(A) op(B) + beta C; op(X) = X or X^T as trans is ord("n") or ord("t").

    A, B and C may be strided views: only their first element and the leading
    dimensions lda, ldb, ldc (row strides in elements) are used.
    """


@overload(gemm, jit_options={"cache": True})
def _gemm_overload(transa, transb, M, N, depth, A, lda, B, ldb, beta, C, ldc):
    xxgemm = _BLAS().numba_xxgemm(A.dtype)  # numba's own binding of scipy's BLAS xgemm
    kind = ord(get_blas_kind(A.dtype))
    dtype = as_dtype(A.dtype)

    def impl(transa, transb, M, N, depth, A, lda, B, ldb, beta, C, ldc):
        # column-major BLAS sees each row-major array as its transpose: C^T = op(B)^T op(A)^T
        scalars = np.empty(2, dtype=dtype)
        scalars[0] = 1.0
        scalars[1] = beta
        xxgemm(kind, transb, transa, N, M, depth, scalars[0:].ctypes, B.ctypes, ldb, A.ctypes, lda,
               scalars[1:].ctypes, C.ctypes, ldc)

    return impl


def _exp64(x, bits):
    """x <- exp(x) for float64 x in [-700, 0] (error below 3e-16 relative); ``bits`` is int64 scratch.

    exp(x) = 2^t exp(r) with t = round(x / ln 2), |r| <= ln 2 / 2; exp(r) by its
    Taylor series to r^13 (remainder < 1e-17) and 2^t built from its exponent bits.
    """
    L = x.shape[0]
    for j in range(L):
        v = x[j]
        t = math.floor(v * _LOG2E + 0.5)
        r = (v - t * _LN2_HI) - t * _LN2_LO
        p = 1.0 / 6227020800.0
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        p = p * r + 1.0
        bits[j] = (np.int64(t) + 1023) << 52
        x[j] = p
    scale = bits[:L].view(np.float64)
    for j in range(L):
        x[j] = x[j] * scale[j]


def _exp32(x, bits):
    """x <- exp(x) for float32 x in [-87, 0] (error ~1e-7 relative, float32's own), eight to a vector.

    The same reduction in float32 and exp(r) to r^7 (remainder < 1e-8).
    """
    L = x.shape[0]
    bits32 = bits[:(L + 1) // 2].view(np.int32)
    for j in range(L):
        v = x[j]
        t = np.floor(v * _LOG2E_32 + _HALF_32)
        r = (v - t * _LN2_HI_32) - t * _LN2_LO_32
        p = _INV5040_32
        p = p * r + _INV720_32
        p = p * r + _INV120_32
        p = p * r + _INV24_32
        p = p * r + _INV6_32
        p = p * r + _HALF_32
        p = p * r + _ONE_32
        p = p * r + _ONE_32
        bits32[j] = (np.int32(t) + np.int32(127)) << np.int32(23)
        x[j] = p
    scale = bits32[:L].view(np.float32)
    for j in range(L):
        x[j] = x[j] * scale[j]


_LOG2E_32, _HALF_32, _ONE_32 = np.float32(_LOG2E), np.float32(0.5), np.float32(1.0)
_LN2_HI_32, _LN2_LO_32 = np.float32(0.693359375), np.float32(-2.12194440e-4)  # float32 split of ln 2
_INV6_32, _INV24_32, _INV120_32, _INV720_32, _INV5040_32 = (np.float32(1.0 / f) for f in (6, 24, 120, 720, 5040))


def _exp_kernel(x, bits):
    """x <- exp(x) in place, vectorised, in x's own precision (see _exp64, _exp32)."""


@overload(_exp_kernel, jit_options={"cache": True, "fastmath": EXP_DIGAMMA})
def _exp_kernel_overload(x, bits):
    return _exp32 if x.dtype == numba.types.float32 else _exp64


@numba.njit(cache=True, fastmath=EXP_DIGAMMA)
def exp_inplace(x, bits):
    """x <- exp(x) for x in [-700, 0] (float64) or [-87, 0] (float32); ``bits`` is int64 scratch of x's length."""
    _exp_kernel(x, bits)


_SQRT2 = 1.4142135623730951
_MANTISSA_BITS = 0x000FFFFFFFFFFFFF
_ONE_BITS = 0x3FF0000000000000  # the exponent bits of 1.0
SMALLEST_NORMAL = 2.2250738585072014e-308  # float64's


@numba.njit(cache=True, inline="always", fastmath=EXP_DIGAMMA)
def _log_of_mantissa(m, exponent):
    """log(m 2^exponent) for m in [1, 2): e log 2 + 2 atanh((m - 1) / (m + 1)), m first taken to [sqrt(1/2), sqrt(2)).

    atanh(f) = f (1 + f^2/3 + f^4/5 + ...) to f^23, |f| <= 0.172 (remainder below 1e-19).
    """
    e = np.float64(exponent)
    big = m > _SQRT2
    m = m * 0.5 if big else m
    e = e + 1.0 if big else e
    f = (m - 1.0) / (m + 1.0)
    z = f * f
    p = 1.0 / 23.0
    p = p * z + 1.0 / 21.0
    p = p * z + 1.0 / 19.0
    p = p * z + 1.0 / 17.0
    p = p * z + 1.0 / 15.0
    p = p * z + 1.0 / 13.0
    p = p * z + 1.0 / 11.0
    p = p * z + 1.0 / 9.0
    p = p * z + 1.0 / 7.0
    p = p * z + 1.0 / 5.0
    p = p * z + 1.0 / 3.0
    p = p * z + 1.0
    return e * _LN2_HI + (2.0 * f * p + e * _LN2_LO)


@numba.njit(cache=True, fastmath=EXP_DIGAMMA, error_model="numpy")
def log_inplace(x, exponent):
    """x <- log(x) for float64 x, vectorised (error ~2e-16 relative to |log x| + 1); ``exponent`` is int64 scratch.

    Entries must be positive and normal (>= 2.2e-308): the caller checks, and takes
    ``math.log`` for the others.  log x = e log 2 + log m from x = m 2^e (:func:`_log_of_mantissa`).
    """
    L = x.shape[0]
    bits = x[:L].view(np.int64)
    for j in range(L):
        b = bits[j]
        exponent[j] = (b >> 52) - 1023
        bits[j] = (b & _MANTISSA_BITS) | _ONE_BITS  # the mantissa, as a number in [1, 2)
    for j in range(L):
        x[j] = _log_of_mantissa(x[j], exponent[j])


@numba.njit(cache=True, fastmath=EXP_DIGAMMA, error_model="numpy")
def digamma_inplace(x, shifted, correction, exponent, inverse):
    """x <- psi(x) for x > 0, vectorised (absolute error ~1e-16); the other four are scratch of x's length.

    psi(x) = psi(y) - sum_{r<10} 1 / (x + r) with y = x + 10 when x < 10 (the sum as one
    fraction), psi(y) = log y - 1 / (2y) - sum_k B_2k / (2k y^2k) up to y^-14, and
    log y = e log 2 + 2 atanh((m - 1) / (m + 1)) from y = m 2^e, m in [sqrt(1/2), sqrt(2)).
    """
    L = x.shape[0]
    for j in range(L):
        v = max(np.float64(x[j]), 1e-300)
        u = min(v, 10.0)
        num = 1.0
        den = u
        for r in range(1, 10):
            t = u + r
            num = num * t + den
            den = den * t
        small = v < 10.0
        correction[j] = num / den if small else 0.0
        y = v + 10.0 if small else v
        shifted[j] = y
        inverse[j] = 1.0 / y
    bits = shifted[:L].view(np.int64)
    for j in range(L):
        b = bits[j]
        exponent[j] = (b >> 52) - 1023
        bits[j] = (b & _MANTISSA_BITS) | _ONE_BITS  # the mantissa, as a number in [1, 2)
    for j in range(L):
        log_y = _log_of_mantissa(shifted[j], exponent[j])
        inv = inverse[j]
        inv2 = inv * inv
        series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (
            1.0 / 240 - inv2 * (1.0 / 132 - inv2 * (691.0 / 32760 - inv2 / 12))))))
        x[j] = log_y - 0.5 * inv - series - correction[j]


@numba.njit(cache=True, inline="always")
def copy_vector(source, target):
    """target[i] = source[i] for every i of the vector ``target``, as a plain loop.

    ``target[:] = source`` compiles numba's shape check and the formatted message of
    its error, a few seconds of compile for each pair of array types a kernel copies.
    """
    for i in range(target.shape[0]):
        target[i] = source[i]


@numba.njit(cache=True, error_model="numpy")
def all_finite(values):
    """True if no entry is inf or nan (compiled without fastmath, which would assume it)."""
    bad = 0
    for v in values.reshape(values.size):
        bad += not np.isfinite(v)
    return bad == 0


def psi_values(values) -> np.ndarray:
    """psi of each value (float64; values below 1e-300, such as a zero prior, taken as 1e-300)."""
    out = np.array(values, dtype=np.float64).ravel()
    L = out.size
    digamma_inplace(out, np.empty(L), np.empty(L), np.empty(L, dtype=np.int64), np.empty(L))
    return out
