// The device-side half of elementwise codegen: CUDA source that every generated kernel starts
// with. It defines the storage types, the casts between dtypes and one function per ufunc, each
// with NumPy's semantics (see ops.h); the generated part only names types and functions.
//
// The source needs no headers: float16 conversions are single PTX instructions and the math
// functions are NVRTC built-ins, so the daemon needs no CUDA include directory at run time.
// Kernels compile with --fmad=false, and + - * / of floats use the explicit round-to-nearest
// intrinsics, so that they equal the host's results bit for bit.
#pragma once

namespace arrayhub {

inline constexpr char kDeviceMath[] = R"ahcuda(
// ---- Storage types ----
struct ah_b8 { unsigned char v; };       // bool as stored: one byte, nonzero is true
struct ah_half { unsigned short bits; };  // IEEE binary16 bits
template <class T> struct ah_complex { typedef T value_type; T re, im; };
typedef ah_complex<float> ah_c64;
typedef ah_complex<double> ah_c128;
template <class T, int N> struct alignas(sizeof(T) * N) ah_vec { T v[N]; };

// ---- Traits ----
template <class A, class B> struct ah_same { static constexpr bool value = false; };
template <class A> struct ah_same<A, A> { static constexpr bool value = true; };
template <class T> struct ah_is_complex { static constexpr bool value = false; };
template <class T> struct ah_is_complex<ah_complex<T>> { static constexpr bool value = true; };
template <class T> struct ah_is_float {
  static constexpr bool value = ah_same<T, float>::value || ah_same<T, double>::value;
};
template <class T> struct ah_int {
  static constexpr bool value = false;
  static constexpr bool is_signed = false;
};
// wide: the unsigned type the arithmetic wraps in (never narrower than unsigned int, so that
// C's promotion to int cannot overflow); [lo, hi): the float values that truncate into T.
#define AH_INT(T, SIGNED, WIDE, BITS, LO, HI)          \
  template <> struct ah_int<T> {                       \
    static constexpr bool value = true;                \
    static constexpr bool is_signed = SIGNED;          \
    typedef WIDE wide;                                 \
    static constexpr int bits = BITS;                  \
    static constexpr double lo = LO;                   \
    static constexpr double hi = HI;                   \
  };
AH_INT(signed char, true, unsigned int, 8, -128.0, 128.0)
AH_INT(short, true, unsigned int, 16, -32768.0, 32768.0)
AH_INT(int, true, unsigned int, 32, -2147483648.0, 2147483648.0)
AH_INT(long long, true, unsigned long long, 64, -9223372036854775808.0, 9223372036854775808.0)
AH_INT(unsigned char, false, unsigned int, 8, 0.0, 256.0)
AH_INT(unsigned short, false, unsigned int, 16, 0.0, 65536.0)
AH_INT(unsigned int, false, unsigned int, 32, 0.0, 4294967296.0)
AH_INT(unsigned long long, false, unsigned long long, 64, 0.0, 18446744073709551616.0)
#undef AH_INT

// ---- Real math: one name for the float and the double function ----
#define AH_MATH1(name, f, d)                                               \
  __device__ __forceinline__ float name(float x) { return f(x); }         \
  __device__ __forceinline__ double name(double x) { return d(x); }
#define AH_MATH2(name, f, d)                                                       \
  __device__ __forceinline__ float name(float x, float y) { return f(x, y); }     \
  __device__ __forceinline__ double name(double x, double y) { return d(x, y); }
AH_MATH1(ah_exp, expf, exp) AH_MATH1(ah_expm1, expm1f, expm1) AH_MATH1(ah_log, logf, log)
AH_MATH1(ah_log1p, log1pf, log1p) AH_MATH1(ah_log2, log2f, log2) AH_MATH1(ah_log10, log10f, log10)
AH_MATH1(ah_sqrt, sqrtf, sqrt) AH_MATH1(ah_sin, sinf, sin) AH_MATH1(ah_cos, cosf, cos)
AH_MATH1(ah_tan, tanf, tan) AH_MATH1(ah_asin, asinf, asin) AH_MATH1(ah_acos, acosf, acos)
AH_MATH1(ah_atan, atanf, atan) AH_MATH1(ah_sinh, sinhf, sinh) AH_MATH1(ah_cosh, coshf, cosh)
AH_MATH1(ah_tanh, tanhf, tanh) AH_MATH1(ah_asinh, asinhf, asinh) AH_MATH1(ah_floor, floorf, floor)
AH_MATH1(ah_ceil, ceilf, ceil) AH_MATH1(ah_rint, rintf, rint) AH_MATH1(ah_fabs, fabsf, fabs)
AH_MATH1(ah_exp2, exp2f, exp2) AH_MATH1(ah_trunc, truncf, trunc)
AH_MATH1(ah_acosh, acoshf, acosh) AH_MATH1(ah_atanh, atanhf, atanh)
AH_MATH2(ah_atan2, atan2f, atan2) AH_MATH2(ah_hypot, hypotf, hypot) AH_MATH2(ah_pow, powf, pow)
AH_MATH2(ah_fmod, fmodf, fmod) AH_MATH2(ah_copysign, copysignf, copysign)
AH_MATH2(ah_add_rn, __fadd_rn, __dadd_rn) AH_MATH2(ah_sub_rn, __fsub_rn, __dsub_rn)
AH_MATH2(ah_mul_rn, __fmul_rn, __dmul_rn) AH_MATH2(ah_div_rn, __fdiv_rn, __ddiv_rn)
#undef AH_MATH1
#undef AH_MATH2
template <class T> __device__ __forceinline__ T ah_inf();
template <> __device__ __forceinline__ float ah_inf<float>() { return __int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double ah_inf<double>() {
  return __longlong_as_double(0x7ff0000000000000LL);
}
template <class T> __device__ __forceinline__ T ah_nan() { return T(__int_as_float(0x7fc00000)); }
template <class T> __device__ __forceinline__ bool ah_isnan(T x) { return x != x; }
template <class T> __device__ __forceinline__ bool ah_isinf(T x) { return ah_fabs(x) == ah_inf<T>(); }

// ---- Casts (NumPy's astype) ----
__device__ __forceinline__ float ah_h2f(ah_half h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
  return f;
}
__device__ __forceinline__ ah_half ah_f2h(float f) {
  ah_half h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
  return h;
}
__device__ __forceinline__ ah_half ah_d2h(double d) {  // one rounding, as npy_double_to_half
  ah_half h;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h.bits) : "d"(d));
  return h;
}

template <class T> __device__ __forceinline__ bool ah_nonzero(T x) {
  if constexpr (ah_is_complex<T>::value) {
    return x.re != 0 || x.im != 0;
  } else {
    return x != 0;  // NaN is nonzero
  }
}

// Truncation toward zero; NaN, infinities and values outside I give 0.
template <class I> __device__ __forceinline__ I ah_float_to_int(double v) {
  const double t = trunc(v);
  if (!(t >= ah_int<I>::lo && t < ah_int<I>::hi)) return 0;
  return (I)t;
}

template <class To, class From> __device__ __forceinline__ To ah_cast(From x) {
  if constexpr (ah_same<To, From>::value) {
    return x;
  } else if constexpr (ah_same<From, ah_b8>::value) {
    return ah_cast<To>(x.v != 0);
  } else if constexpr (ah_same<From, ah_half>::value) {
    return ah_cast<To>(ah_h2f(x));  // exact
  } else if constexpr (ah_same<To, ah_b8>::value) {
    ah_b8 r;
    r.v = ah_nonzero(x) ? 1 : 0;
    return r;
  } else if constexpr (ah_same<To, bool>::value) {
    return ah_nonzero(x);
  } else if constexpr (ah_is_complex<From>::value) {
    if constexpr (ah_is_complex<To>::value) {
      typedef typename To::value_type R;
      return To{(R)x.re, (R)x.im};
    } else {
      return ah_cast<To>(x.re);  // the imaginary part is dropped
    }
  } else if constexpr (ah_is_complex<To>::value) {
    typedef typename To::value_type R;
    return To{ah_cast<R>(x), R(0)};
  } else if constexpr (ah_same<To, ah_half>::value) {
    if constexpr (ah_same<From, float>::value) {
      return ah_f2h(x);
    } else {
      return ah_d2h((double)x);  // bool, integers (exact below 2^53) and double: one rounding
    }
  } else if constexpr (ah_int<To>::value && ah_is_float<From>::value) {
    return ah_float_to_int<To>((double)x);
  } else {
    // Integer to integer wraps; to float rounds to nearest.
    return (To)x;
  }
}

// ---- Complex helpers (NumPy's algorithms, rounded at each step as the host does) ----
template <class R> __device__ __forceinline__ ah_complex<R> ah_cmul(ah_complex<R> a, ah_complex<R> b) {
  return {ah_sub_rn(ah_mul_rn(a.re, b.re), ah_mul_rn(a.im, b.im)),
          ah_add_rn(ah_mul_rn(a.re, b.im), ah_mul_rn(a.im, b.re))};
}
// Smith's division, as NumPy's complex true_divide loop.
template <class R> __device__ ah_complex<R> ah_cdiv(ah_complex<R> a, ah_complex<R> b) {
  const R abs_br = ah_fabs(b.re), abs_bi = ah_fabs(b.im);
  if (abs_br >= abs_bi) {
    if (abs_br == 0 && abs_bi == 0) return {ah_div_rn(a.re, abs_br), ah_div_rn(a.im, abs_br)};
    const R rat = ah_div_rn(b.im, b.re);
    const R scl = ah_div_rn(R(1), ah_add_rn(b.re, ah_mul_rn(b.im, rat)));
    return {ah_mul_rn(ah_add_rn(a.re, ah_mul_rn(a.im, rat)), scl),
            ah_mul_rn(ah_sub_rn(a.im, ah_mul_rn(a.re, rat)), scl)};
  }
  const R rat = ah_div_rn(b.re, b.im);
  const R scl = ah_div_rn(R(1), ah_add_rn(b.im, ah_mul_rn(b.re, rat)));
  return {ah_mul_rn(ah_add_rn(ah_mul_rn(a.re, rat), a.im), scl),
          ah_mul_rn(ah_sub_rn(ah_mul_rn(a.im, rat), a.re), scl)};
}
template <class R> __device__ __forceinline__ bool ah_cisnan(ah_complex<R> z) {
  return ah_isnan(z.re) || ah_isnan(z.im);
}
// NumPy's lexicographic order (CLT, CLE, ...): false whenever a NaN decides.
template <class R> __device__ __forceinline__ bool ah_clt(ah_complex<R> a, ah_complex<R> b) {
  return (a.re < b.re && !ah_isnan(a.im) && !ah_isnan(b.im)) || (a.re == b.re && a.im < b.im);
}
template <class R> __device__ __forceinline__ bool ah_cle(ah_complex<R> a, ah_complex<R> b) {
  return (a.re < b.re && !ah_isnan(a.im) && !ah_isnan(b.im)) || (a.re == b.re && a.im <= b.im);
}

// Transcendental functions of complex numbers run in double (exact for complex64 inputs) and
// round once at the end.
__device__ ah_c128 ah_z_sqrt(ah_c128 z) {
  if (z.re == 0 && z.im == 0) return {0.0, z.im};
  const double t = sqrt((fabs(z.re) + hypot(z.re, z.im)) * 0.5);
  if (z.re >= 0) return {t, z.im / (2 * t)};
  return {fabs(z.im) / (2 * t), copysign(t, z.im)};
}
// C99 Annex G's cexp, as glibc's (NumPy's): a zero imaginary part stays exactly zero, with its
// sign, whatever the real part (exp(x) + 0i, not inf * 0 = NaN when exp(x) overflows), and
// an infinite real part with an infinite or NaN imaginary part gives Annex G's values.
__device__ ah_c128 ah_z_exp(ah_c128 z) {
  if (z.im == 0) return {exp(z.re), z.im};
  if (isinf(z.re) && !isfinite(z.im)) {
    if (z.re < 0) return {0.0, copysign(0.0, z.im)};  // exp(-inf + i inf or NaN) = +-0 +- 0i
    return {z.re, z.im - z.im};                      // exp(+inf + i inf or NaN) = inf + i NaN
  }
  const double e = exp(z.re);
  return {e * cos(z.im), e * sin(z.im)};
}
// log|z| as glibc's clog takes it (NumPy's and the host backend's complex log): near the unit
// circle, log1p(|z|^2 - 1) / 2 with |z|^2 - 1 summed from the squares' exact parts (glibc's
// __x2y2m1), so that a tiny real part survives: log|1e-30 - i| is 5e-61 where log(hypot) gives
// 0, and cpow's b log a then differs in kind when b is infinite.
__device__ void ah_two_sum(double a, double b, double& sum, double& error) {
  sum = a + b;
  const double b_part = sum - a;
  error = (a - (sum - b_part)) + (b - b_part);
}
__device__ double ah_squares_minus_one(double x, double y) {
  const double xx = x * x, yy = y * y;
  const double xx_low = fma(x, x, -xx), yy_low = fma(y, y, -yy);
  double s1, e1, s2, e2;
  ah_two_sum(xx, -1.0, s1, e1);
  ah_two_sum(s1, yy, s2, e2);
  return s2 + (((e1 + e2) + xx_low) + yy_low);
}
__device__ double ah_log_abs(double x, double y) {
  double big = fabs(x), small = fabs(y);
  if (big < small) {
    const double t = big;
    big = small;
    small = t;
  }
  if (big == 1) return log1p(small * small) / 2;
  if (big >= 0.5 && big < 2 && small < 1 && (big > 1 || big * big + small * small >= 0.5)) {
    return log1p(ah_squares_minus_one(big, small)) / 2;
  }
  return log(hypot(big, small));
}
__device__ ah_c128 ah_z_log(ah_c128 z) { return {ah_log_abs(z.re, z.im), atan2(z.im, z.re)}; }
__device__ ah_c128 ah_z_expm1(ah_c128 z) {
  const double a = sin(z.im / 2);
  return {expm1(z.re) * cos(z.im) - 2 * a * a, exp(z.re) * sin(z.im)};
}
// log|1 + z| as log1p(2 re + re^2 + im^2) / 2, which keeps precision for small z.
__device__ ah_c128 ah_z_log1p(ah_c128 z) {
  return {log1p(z.re * (2 + z.re) + z.im * z.im) / 2, atan2(z.im, z.re + 1)};
}
__device__ ah_c128 ah_z_sin(ah_c128 z) { return {sin(z.re) * cosh(z.im), cos(z.re) * sinh(z.im)}; }
__device__ ah_c128 ah_z_cos(ah_c128 z) { return {cos(z.re) * cosh(z.im), -sin(z.re) * sinh(z.im)}; }
__device__ ah_c128 ah_z_sinh(ah_c128 z) { return {sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im)}; }
__device__ ah_c128 ah_z_cosh(ah_c128 z) { return {cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im)}; }
__device__ ah_c128 ah_z_tan(ah_c128 z) {
  const double d = cos(2 * z.re) + cosh(2 * z.im);
  return {sin(2 * z.re) / d, sinh(2 * z.im) / d};
}
__device__ ah_c128 ah_z_tanh(ah_c128 z) {
  const double d = cosh(2 * z.re) + cos(2 * z.im);
  return {sinh(2 * z.re) / d, sin(2 * z.im) / d};
}
// ---- Inverse circular and hyperbolic functions of complex numbers ----
// The textbook formulas (asinh(z) = log(z + sqrt(z^2 + 1)) and the like) overflow in z^2 for
// large |z|, cancel near the branch points +-1 and +-i, and lose signed zeros and infinities.
// These follow Hull, Fairgrieve and Tang, "Implementing the complex arcsine and arccosine
// functions using exception handling" (ACM TOMS 1997), and Kahan's atanh, as FreeBSD's catrig.c
// and NumPy's npy_math_complex.c do, with C99 Annex G's values for infinities and NaN (glibc's,
// hence NumPy's and the host backend's). Like the functions above they run in double and round
// once at the end, so one set of thresholds (in double's epsilon) serves complex64 as well.
#define AH_EPS 0x1p-52  // DBL_EPSILON
#define AH_LN2 0.69314718055994530942
#define AH_PIO2_HI 0x1.921fb54442d18p+0  // pi/2 = AH_PIO2_HI + AH_PIO2_LO
#define AH_PIO2_LO 0x1.1a62633145c07p-54
__device__ __forceinline__ bool ah_signbit(double x) { return copysign(1.0, x) < 0; }
// log(z) for |z| beyond 2^52, where it must not overflow (|z| itself may exceed DBL_MAX).
__device__ ah_c128 ah_z_log_large(double x, double y) {
  if (fabs(x) > 0x1p1020 || fabs(y) > 0x1p1020) {
    return {log(hypot(x * 0.25, y * 0.25)) + 2 * AH_LN2, atan2(y, x)};
  }
  return {log(hypot(x, y)), atan2(y, x)};
}
// Re(1 / (x + iy)) = x / (x^2 + y^2) without overflow or underflow in the squares.
__device__ double ah_real_of_reciprocal(double x, double y) {
  const double ax = fabs(x), ay = fabs(y);
  if (ah_isinf(x) || ax > ay * 0x1p27) return 1 / x;  // y^2 is below x^2's rounding
  if (ay > ax * 0x1p27) return x / y / y;             // x^2 is below y^2's rounding
  if (ax < 0x1p500 && ay < 0x1p500) return x / (x * x + y * y);
  // Both large and within 2^27 of each other: scaling by a power of 2 is exact.
  const double xs = x * 0x1p-600, ys = y * 0x1p-600;
  return xs / (xs * xs + ys * ys) * 0x1p-600;
}
// (hypot(a, b) - b) / 2, given h = hypot(a, b), in the form that does not cancel for b's sign.
__device__ __forceinline__ double ah_half_excess(double a, double b, double h) {
  if (b < 0) return (h - b) / 2;
  if (b == 0) return a / 2;
  return a * a / (h + b) / 2;
}
// Hull et al.'s core for finite x, y >= 0 with |z| <= 2^52. With R = |z + i|, S = |z - i|,
// A = (R + S) / 2 >= 1 and B = (R - S) / 2 = y / A:
//   asinh(x + iy) = log(A + sqrt(A^2 - 1)) + i asin(B).
// re is the real part. Where asin(B) is accurate, b_usable is set and b = B; else (B near 1,
// where asin loses digits, or y so small that y / A underflows) the angle is
// atan2(y_scaled, root) with root = sqrt(A^2 - y^2), both scaled alike.
struct ah_hull {
  double re;
  bool b_usable;
  double b, y_scaled, root;
};
__device__ ah_hull ah_hull_core(double x, double y) {
  ah_hull h;
  const double R = hypot(x, y + 1), S = hypot(x, y - 1);
  const double A = fmax((R + S) / 2, 1.0);  // >= 1 exactly; rounding could give less
  if (A < 10) {
    // log(A + sqrt(A^2 - 1)) = log1p(Am1 + sqrt(Am1 (A + 1))) with Am1 = A - 1 formed without
    // cancellation as the sum of the two half excesses.
    if (y == 1 && x < AH_EPS * AH_EPS / 128) {
      h.re = sqrt(x);  // A - 1 = x / 2 to double precision; x^2 would underflow
    } else if (x >= AH_EPS * fabs(y - 1)) {
      const double Am1 = ah_half_excess(x, 1 + y, R) + ah_half_excess(x, 1 - y, S);
      h.re = log1p(Am1 + sqrt(Am1 * (A + 1)));
    } else if (y < 1) {
      h.re = x / sqrt((1 - y) * (1 + y));  // x negligible beside 1 - y: A - 1 = x^2/(2(1-y^2))
    } else {
      h.re = log1p((y - 1) + sqrt((y - 1) * (y + 1)));  // x negligible beside y - 1: A = y
    }
  } else {
    h.re = log(A + sqrt(A * A - 1));  // A * A cannot overflow: A <= |z| + 1
  }
  h.y_scaled = y;
  if (y < 0x1p-509) {
    // y / A could lose digits to underflow: scale y and A by 2/eps for atan2 (A^2 - y^2 = A^2).
    h.b_usable = false;
    h.root = A * (2 / AH_EPS);
    h.y_scaled = y * (2 / AH_EPS);
    return h;
  }
  h.b = y / A;
  h.b_usable = h.b <= 0.6417;  // Hull et al.'s crossover: beyond it asin(B) is ill-conditioned
  if (h.b_usable) return h;
  // root = sqrt((A - y)(A + y)), A - y again from half excesses or the regions' limits.
  if (y == 1 && x < AH_EPS / 128) {
    h.root = sqrt(x) * sqrt((A + y) / 2);  // A - y = x / 2
  } else if (x >= AH_EPS * fabs(y - 1)) {
    const double Amy = ah_half_excess(x, y + 1, R) + ah_half_excess(x, y - 1, S);
    h.root = sqrt(Amy * (A + y));
  } else if (y > 1) {
    // A - y = x^2 y / (2 (y^2 - 1)), whose root underflows for tiny x: scale both by 4/eps^2.
    h.root = x * (4 / AH_EPS / AH_EPS) * y / sqrt((y + 1) * (y - 1));
    h.y_scaled = y * (4 / AH_EPS / AH_EPS);
  } else {
    h.root = sqrt((1 - y) * (1 + y));  // x negligible beside 1 - y: A = 1
  }
  return h;
}
__device__ ah_c128 ah_z_asinh(ah_c128 z) {
  const double x = z.re, y = z.im, ax = fabs(x), ay = fabs(y);
  if (ah_isnan(x) || ah_isnan(y)) {
    if (ah_isinf(x)) return {x, y + y};  // asinh(+-inf + i NaN) = +-inf + i NaN
    // asinh(NaN +- i inf) = +-inf + i NaN, the sign unspecified: glibc's is the NaN's.
    if (ah_isinf(y)) return {copysign(ah_inf<double>(), x), x + x};
    if (y == 0) return {x + x, y};       // asinh(NaN +- i0) = NaN +- i0
    return {ah_nan<double>(), ah_nan<double>()};
  }
  if (ax > 1 / AH_EPS || ay > 1 / AH_EPS) {
    // sqrt(z^2 + 1) = z to double precision: asinh(z) = log(2z), by oddness from the right
    // half-plane; also the infinities (asinh(inf + iy) = inf + i0, of inf + i inf: inf + i pi/4).
    const ah_c128 w = ah_z_log_large(ax, ay);
    return {copysign(w.re + AH_LN2, x), copysign(w.im, y)};
  }
  // asinh(z) = z - z^3/6 + ...: z itself to double precision; keeps signed zeros.
  if (ax < 0x1p-27 && ay < 0x1p-27) return z;
  const ah_hull h = ah_hull_core(ax, ay);
  const double im = h.b_usable ? asin(h.b) : atan2(h.y_scaled, h.root);
  return {copysign(h.re, x), copysign(im, y)};
}
// asin(z) = -i asinh(iz); by asinh's symmetries that is asinh with the parts swapped.
__device__ ah_c128 ah_z_asin(ah_c128 z) {
  const ah_c128 w = ah_z_asinh({z.im, z.re});
  return {w.im, w.re};
}
__device__ ah_c128 ah_z_acos(ah_c128 z) {
  const double x = z.re, y = z.im, ax = fabs(x), ay = fabs(y);
  const bool x_negative = ah_signbit(x), y_negative = ah_signbit(y);
  if (ah_isnan(x) || ah_isnan(y)) {
    // acos(+-inf + i NaN) = NaN +- i inf, the sign unspecified: glibc's is the NaN's, negated.
    if (ah_isinf(x)) return {y + y, -copysign(ah_inf<double>(), y)};
    if (ah_isinf(y)) return {x + x, -y};                 // acos(NaN +- i inf) = NaN -+ i inf
    if (x == 0) return {AH_PIO2_HI, y + y};              // acos(+-0 + i NaN) = pi/2 + i NaN
    return {ah_nan<double>(), ah_nan<double>()};
  }
  if (ax > 1 / AH_EPS || ay > 1 / AH_EPS) {
    // acos(z) = -i log(2z) in the upper half-plane (conjugate below): the real part is
    // |arg z|, the imaginary part -+log|2z|; also the infinities.
    const ah_c128 w = ah_z_log_large(x, y);
    const double im = w.re + AH_LN2;
    return {fabs(w.im), y_negative ? im : -im};
  }
  if (x == 1 && y == 0) return {0.0, -y};  // exact, and keeps the sign of the zero
  // acos(z) = pi/2 - z - z^3/6 - ...: pi/2 - z to double precision (pi/2 in two parts).
  if (ax < 0x1p-27 && ay < 0x1p-27) return {AH_PIO2_HI - (x - AH_PIO2_LO), -y};
  // The roles of x and y swap: acos(x + iy) = acos(B') -+ i log(A' + sqrt(A'^2 - 1)) with
  // A', B' from |z + 1| and |z - 1|, the sign of the imaginary part opposite to y's.
  const ah_hull h = ah_hull_core(ay, ax);
  double re;
  if (h.b_usable) {
    re = acos(x_negative ? -h.b : h.b);
  } else {
    re = atan2(h.root, x_negative ? -h.y_scaled : h.y_scaled);
  }
  return {re, y_negative ? h.re : -h.re};
}
// acosh(z) = +-i acos(z), the sign chosen for a nonnegative real part; the imaginary part takes
// z's sign (Annex G), so acosh(x +- i0) for x < -1 is on the right side of the cut.
__device__ ah_c128 ah_z_acosh(ah_c128 z) {
  const ah_c128 w = ah_z_acos(z);
  if (ah_isnan(w.re) && ah_isnan(w.im)) return w;
  if (ah_isnan(w.re)) return {fabs(w.im), w.re};  // acosh(+-inf + i NaN), acosh(NaN +- i inf)
  if (ah_isnan(w.im)) return {w.im, w.re};        // acosh(+-0 + i NaN) = NaN + i pi/2 (glibc)
  return {fabs(w.im), copysign(w.re, z.im)};
}
__device__ ah_c128 ah_z_atanh(ah_c128 z) {
  const double x = z.re, y = z.im, ax = fabs(x), ay = fabs(y);
  // The real segment [-1, 1] (atanh(+-1) = +-inf) and the imaginary axis, as the real functions
  // compute them; keeps signed zeros.
  if (y == 0 && ax <= 1) return {atanh(x), y};
  if (x == 0) return {x, atan(y)};  // also atanh(+-0 + i NaN) and atanh(+-0 +- i inf)
  if (ah_isnan(x) || ah_isnan(y)) {
    if (ah_isinf(x)) return {copysign(0.0, x), y + y};  // atanh(+-inf + i NaN) = +-0 + i NaN
    // atanh(NaN +- i inf) = +-0 +- i pi/2, the zero's sign unspecified: glibc's is the NaN's.
    if (ah_isinf(y)) return {copysign(0.0, x), copysign(AH_PIO2_HI, y)};
    return {ah_nan<double>(), ah_nan<double>()};
  }
  // atanh(z) = 1/z + i +-pi/2 to double precision: 1/z's imaginary part is below pi/2's rounding.
  if (ax > 1 / AH_EPS || ay > 1 / AH_EPS) {
    return {ah_real_of_reciprocal(x, y), copysign(AH_PIO2_HI, y)};
  }
  // atanh(z) = z + z^3/3 + ...: z itself to double precision.
  if (ax < 0x1p-27 && ay < 0x1p-27) return z;
  // Re = log(|1 + z|^2 / |1 - z|^2) / 4 = log1p(4|x| / ((|x| - 1)^2 + y^2)) / 4, which neither
  // cancels nor overflows here; at |x| = 1 with tiny y, (log 2 - log|y|) / 2 (4|x| / y^2 would
  // overflow). Im = arg((1 + z)(1 - conj z)) / 2 = atan2(2y, 1 - x^2 - y^2) / 2, with 1 - x^2 as
  // (1 - x)(1 + x) so it does not cancel near |x| = 1.
  double re, im;
  if (ax == 1 && ay < AH_EPS) {
    re = (AH_LN2 - log(ay)) / 2;
  } else {
    re = log1p(4 * ax / ((ax - 1) * (ax - 1) + ay * ay)) / 4;
  }
  if (ax == 1) {
    im = atan2(2.0, -ay) / 2;
  } else if (ay < AH_EPS) {
    im = atan2(2 * ay, (1 - ax) * (1 + ax)) / 2;  // y^2 is below 1 - x^2's rounding
  } else {
    im = atan2(2 * ay, (1 - ax) * (1 + ax) - ay * ay) / 2;
  }
  return {copysign(re, x), copysign(im, y)};
}
// atan(z) = -i atanh(iz); by atanh's symmetries that is atanh with the parts swapped.
__device__ ah_c128 ah_z_atan(ah_c128 z) {
  const ah_c128 w = ah_z_atanh({z.im, z.re});
  return {w.im, w.re};
}
#undef AH_EPS
#undef AH_LN2
#undef AH_PIO2_HI
#undef AH_PIO2_LO
// C99 Annex G's complex product, as glibc's __muldc3 (which cpow's b log a goes through): the
// plain formula, and where both parts come out NaN, the infinities recovered from the operands,
// so that an infinite factor times a finite nonzero one stays infinite.
__device__ ah_c128 ah_z_mul(ah_c128 x, ah_c128 y) {
  double a = x.re, b = x.im, c = y.re, d = y.im;
  const double ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  double re = ac - bd, im = ad + bc;
  if (!isnan(re) || !isnan(im)) return {re, im};
  bool recalc = false;
  if (isinf(a) || isinf(b)) {
    a = copysign(isinf(a) ? 1.0 : 0.0, a);
    b = copysign(isinf(b) ? 1.0 : 0.0, b);
    if (isnan(c)) c = copysign(0.0, c);
    if (isnan(d)) d = copysign(0.0, d);
    recalc = true;
  }
  if (isinf(c) || isinf(d)) {
    c = copysign(isinf(c) ? 1.0 : 0.0, c);
    d = copysign(isinf(d) ? 1.0 : 0.0, d);
    if (isnan(a)) a = copysign(0.0, a);
    if (isnan(b)) b = copysign(0.0, b);
    recalc = true;
  }
  if (!recalc && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
    if (isnan(a)) a = copysign(0.0, a);
    if (isnan(b)) b = copysign(0.0, b);
    if (isnan(c)) c = copysign(0.0, c);
    if (isnan(d)) d = copysign(0.0, d);
    recalc = true;
  }
  if (!recalc) return {re, im};
  const double inf = ah_inf<double>();
  return {inf * (a * c - b * d), inf * (a * d + b * c)};
}
// a ** b as NumPy's npy_cpow: its special cases (0 ** b by the sign of b's real part alone;
// small integer powers by products, the first three written out so that an infinite part
// is not multiplied by 1's zero imaginary part), then glibc's cpow, exp(b log a) with C99's
// product.
template <class R> __device__ ah_complex<R> ah_cpow(ah_complex<R> a, ah_complex<R> b) {
  if (b.re == 0 && b.im == 0) return {R(1), R(0)};
  if (a.re == 0 && a.im == 0) {
    if (b.re > 0) return {R(0), R(0)};
    return {ah_nan<R>(), ah_nan<R>()};
  }
  if (b.im == 0 && b.re == trunc(b.re) && fabs((double)b.re) < 100) {
    if (b.re == 1) return a;
    if (b.re == 2) return ah_cmul(a, a);
    if (b.re == 3) return ah_cmul(a, ah_cmul(a, a));
    int n = (int)b.re;
    const bool negative = n < 0;
    if (negative) n = -n;
    ah_complex<R> result{R(1), R(0)}, base = a;
    for (; n != 0; n >>= 1) {
      if (n & 1) result = ah_cmul(result, base);
      base = ah_cmul(base, base);
    }
    return negative ? ah_cdiv(ah_complex<R>{R(1), R(0)}, result) : result;
  }
  const ah_c128 e = ah_z_exp(ah_z_mul({b.re, b.im}, ah_z_log({a.re, a.im})));
  return {R(e.re), R(e.im)};
}
template <class R> __device__ __forceinline__ ah_complex<R> ah_zcall(ah_c128 (*f)(ah_c128), ah_complex<R> z) {
  const ah_c128 r = f({z.re, z.im});
  return {R(r.re), R(r.im)};
}

// ---- Integer helpers ----
template <class T> __device__ __forceinline__ T ah_wrap_add(T a, T b) {
  typedef typename ah_int<T>::wide W;
  return (T)((W)a + (W)b);
}
template <class T> __device__ __forceinline__ T ah_wrap_sub(T a, T b) {
  typedef typename ah_int<T>::wide W;
  return (T)((W)a - (W)b);
}
template <class T> __device__ __forceinline__ T ah_wrap_mul(T a, T b) {
  typedef typename ah_int<T>::wide W;
  return (T)((W)a * (W)b);
}

// Python's floor division and remainder of floats (npy_divmod): the quotient snapped to an
// integer, the remainder with the divisor's sign.
template <class T> __device__ T ah_divmod(T a, T b, T* modulus) {
  T mod = ah_fmod(a, b);
  if (b == 0) {
    *modulus = mod;
    return ah_div_rn(a, b);
  }
  T div = ah_div_rn(ah_sub_rn(a, mod), b);
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod = ah_add_rn(mod, b);
      div = ah_sub_rn(div, T(1));
    }
  } else {
    mod = ah_copysign(T(0), b);
  }
  T floordiv;
  if (div != 0) {
    floordiv = ah_floor(div);
    if (ah_sub_rn(div, floordiv) > T(0.5)) floordiv = ah_add_rn(floordiv, T(1));
  } else {
    floordiv = ah_copysign(T(0), ah_div_rn(a, b));
  }
  *modulus = mod;
  return floordiv;
}

// ---- Ufuncs. T is the loop's working type: bool, an integer, float (also for float16),
// double or ah_complex; core only asks for the loops NumPy has. ----
template <class T> __device__ __forceinline__ T ah_op_add(T a, T b) {
  if constexpr (ah_same<T, bool>::value) return a || b;
  else if constexpr (ah_int<T>::value) return ah_wrap_add(a, b);
  else if constexpr (ah_is_complex<T>::value) return {ah_add_rn(a.re, b.re), ah_add_rn(a.im, b.im)};
  else return ah_add_rn(a, b);
}
template <class T> __device__ __forceinline__ T ah_op_subtract(T a, T b) {
  if constexpr (ah_int<T>::value) return ah_wrap_sub(a, b);
  else if constexpr (ah_is_complex<T>::value) return {ah_sub_rn(a.re, b.re), ah_sub_rn(a.im, b.im)};
  else return ah_sub_rn(a, b);
}
template <class T> __device__ __forceinline__ T ah_op_multiply(T a, T b) {
  if constexpr (ah_same<T, bool>::value) return a && b;
  else if constexpr (ah_int<T>::value) return ah_wrap_mul(a, b);
  else if constexpr (ah_is_complex<T>::value) return ah_cmul(a, b);
  else return ah_mul_rn(a, b);
}
template <class T> __device__ __forceinline__ T ah_op_true_divide(T a, T b) {
  if constexpr (ah_is_complex<T>::value) return ah_cdiv(a, b);
  else return ah_div_rn(a, b);
}
template <class T> __device__ T ah_op_floor_divide(T a, T b) {
  if constexpr (ah_int<T>::value) {
    if (b == 0) return 0;
    if constexpr (ah_int<T>::is_signed) {
      if (b == -1) return ah_wrap_sub(T(0), a);  // MIN // -1 wraps
    }
    T q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) q -= 1;
    return q;
  } else {
    T mod;
    return ah_divmod(a, b, &mod);
  }
}
template <class T> __device__ T ah_op_remainder(T a, T b) {
  if constexpr (ah_int<T>::value) {
    if (b == 0) return 0;
    if constexpr (ah_int<T>::is_signed) {
      if (b == -1) return 0;  // also MIN % -1, which would trap
    }
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else {
    if (b == 0) return ah_fmod(a, b);
    T mod;
    ah_divmod(a, b, &mod);
    return mod;
  }
}
template <class T> __device__ T ah_op_power(T a, T b) {
  if constexpr (ah_int<T>::value) {
    typedef typename ah_int<T>::wide W;
    if constexpr (ah_int<T>::is_signed) {
      if (b < 0) {  // NumPy raises; the truncated value of a ** b is 0 unless |a| == 1
        if (a == 1) return 1;
        if (a == -1) return (b & 1) ? T(-1) : T(1);
        return 0;
      }
    }
    W result = 1, base = (W)a;
    for (unsigned long long e = (unsigned long long)b; e != 0; e >>= 1) {
      if (e & 1) result *= base;
      base *= base;
    }
    return (T)result;
  } else if constexpr (ah_is_complex<T>::value) {
    return ah_cpow(a, b);
  } else {
    return ah_pow(a, b);
  }
}
// C's remainder (the dividend's sign); integer x fmod 0 gives 0.
template <class T> __device__ T ah_op_fmod(T a, T b) {
  if constexpr (ah_int<T>::value) {
    if (b == 0) return 0;
    if constexpr (ah_int<T>::is_signed) {
      if (b == -1) return 0;  // also MIN fmod -1, which would trap
    }
    return (T)(a % b);
  } else {
    return ah_fmod(a, b);
  }
}
template <class T> __device__ __forceinline__ T ah_op_float_power(T a, T b) { return ah_op_power(a, b); }
// gcd and lcm: Euclid on the absolute values in 64-bit unsigned (|MIN| converts back to MIN).
template <class T> __device__ __forceinline__ unsigned long long ah_magnitude(T x) {
  if constexpr (ah_int<T>::is_signed) {
    if (x < 0) return 0ULL - (unsigned long long)x;
  }
  return (unsigned long long)x;
}
__device__ __forceinline__ unsigned long long ah_euclid(unsigned long long a, unsigned long long b) {
  while (a != 0) {
    const unsigned long long c = a;
    a = b % a;
    b = c;
  }
  return b;
}
template <class T> __device__ T ah_op_gcd(T a, T b) {
  return (T)ah_euclid(ah_magnitude(a), ah_magnitude(b));
}
// NumPy's bitwise_count: the population count of the magnitude, as uint8.
template <class T> __device__ __forceinline__ unsigned char ah_op_bitwise_count(T a) {
  return (unsigned char)__popcll(ah_magnitude(a));
}
template <class T> __device__ T ah_op_lcm(T a, T b) {
  const unsigned long long g = ah_euclid(ah_magnitude(a), ah_magnitude(b));
  if (g == 0) return 0;
  return (T)(ah_magnitude(a) / g * ah_magnitude(b));
}
template <class T> __device__ __forceinline__ T ah_op_negative(T a) {
  if constexpr (ah_int<T>::value) return ah_wrap_sub(T(0), a);
  else if constexpr (ah_is_complex<T>::value) return {-a.re, -a.im};
  else return -a;
}
template <class T> __device__ __forceinline__ auto ah_op_absolute(T a) {
  if constexpr (ah_same<T, bool>::value) return a;
  else if constexpr (ah_int<T>::value && ah_int<T>::is_signed) return a < 0 ? ah_wrap_sub(T(0), a) : a;
  else if constexpr (ah_int<T>::value) return a;
  else if constexpr (ah_is_complex<T>::value) return ah_hypot(a.re, a.im);
  else return ah_fabs(a);
}
template <class T> __device__ T ah_op_sign(T a) {
  if constexpr (ah_int<T>::value) {
    return a > 0 ? T(1) : (a < T(0) ? T(-1) : T(0));
  } else if constexpr (ah_is_complex<T>::value) {
    typedef typename T::value_type R;
    const R nan = ah_nan<R>();
    const R m = ah_hypot(a.re, a.im);
    if (ah_isnan(m)) return {nan, nan};
    if (ah_isinf(m)) {
      if (ah_isinf(a.re) && ah_isinf(a.im)) return {nan, nan};
      if (ah_isinf(a.re)) return {a.re > 0 ? R(1) : R(-1), R(0)};
      return {R(0), a.im > 0 ? R(1) : R(-1)};
    }
    if (m == 0) return {R(0), R(0)};
    return {ah_div_rn(a.re, m), ah_div_rn(a.im, m)};
  } else {
    return a > 0 ? T(1) : (a < 0 ? T(-1) : (a == 0 ? T(0) : a));
  }
}
#define AH_TRANSCENDENTAL(name, real_fn, complex_fn)                          \
  template <class T> __device__ __forceinline__ T ah_op_##name(T a) {         \
    if constexpr (ah_is_complex<T>::value) return ah_zcall(complex_fn, a);    \
    else return real_fn(a);                                                    \
  }
AH_TRANSCENDENTAL(exp, ah_exp, ah_z_exp)
AH_TRANSCENDENTAL(expm1, ah_expm1, ah_z_expm1)
AH_TRANSCENDENTAL(log, ah_log, ah_z_log)
AH_TRANSCENDENTAL(log1p, ah_log1p, ah_z_log1p)
AH_TRANSCENDENTAL(sqrt, ah_sqrt, ah_z_sqrt)
AH_TRANSCENDENTAL(sin, ah_sin, ah_z_sin)
AH_TRANSCENDENTAL(cos, ah_cos, ah_z_cos)
AH_TRANSCENDENTAL(tan, ah_tan, ah_z_tan)
AH_TRANSCENDENTAL(arcsin, ah_asin, ah_z_asin)
AH_TRANSCENDENTAL(arccos, ah_acos, ah_z_acos)
AH_TRANSCENDENTAL(arctan, ah_atan, ah_z_atan)
AH_TRANSCENDENTAL(sinh, ah_sinh, ah_z_sinh)
AH_TRANSCENDENTAL(cosh, ah_cosh, ah_z_cosh)
AH_TRANSCENDENTAL(tanh, ah_tanh, ah_z_tanh)
AH_TRANSCENDENTAL(arcsinh, ah_asinh, ah_z_asinh)
AH_TRANSCENDENTAL(arccosh, ah_acosh, ah_z_acosh)
AH_TRANSCENDENTAL(arctanh, ah_atanh, ah_z_atanh)
#undef AH_TRANSCENDENTAL
// NumPy's complex log2 and log10: log(z) scaled.
template <class T> __device__ __forceinline__ T ah_op_log2(T a) {
  if constexpr (ah_is_complex<T>::value) {
    const ah_c128 l = ah_z_log({a.re, a.im});
    const double k = 1.442695040888963407359924681001892137;
    typedef typename T::value_type R;
    return {R(l.re * k), R(l.im * k)};
  } else {
    return ah_log2(a);
  }
}
template <class T> __device__ __forceinline__ T ah_op_log10(T a) {
  if constexpr (ah_is_complex<T>::value) {
    const ah_c128 l = ah_z_log({a.re, a.im});
    const double k = 0.434294481903251827651128918916605082;
    typedef typename T::value_type R;
    return {R(l.re * k), R(l.im * k)};
  } else {
    return ah_log10(a);
  }
}
template <class T> __device__ __forceinline__ T ah_op_fabs(T a) { return ah_fabs(a); }
template <class T> __device__ __forceinline__ T ah_op_cbrt(T a) {
  if constexpr (ah_same<T, float>::value) return cbrtf(a);
  else return cbrt(a);
}
// NumPy's complex exp2: exp of z scaled by ln 2 in the component type.
template <class T> __device__ __forceinline__ T ah_op_exp2(T a) {
  if constexpr (ah_is_complex<T>::value) {
    typedef typename T::value_type R;
    const R k = R(0.693147180559945309417232121458176568);
    return ah_op_exp(T{ah_mul_rn(a.re, k), ah_mul_rn(a.im, k)});
  } else {
    return ah_exp2(a);
  }
}
// Integers: 1 / a truncated, 0 for 0 (ufuncs.def). Complex: NumPy's Smith-style loop, no case
// for 0 (NaNs).
template <class T> __device__ T ah_op_reciprocal(T a) {
  if constexpr (ah_int<T>::value) {
    return a == 0 ? T(0) : (T)(T(1) / a);
  } else if constexpr (ah_is_complex<T>::value) {
    typedef typename T::value_type R;
    if (ah_fabs(a.im) <= ah_fabs(a.re)) {
      const R r = ah_div_rn(a.im, a.re);
      const R d = ah_add_rn(a.re, ah_mul_rn(a.im, r));
      return {ah_div_rn(R(1), d), ah_div_rn(-r, d)};
    }
    const R r = ah_div_rn(a.re, a.im);
    const R d = ah_add_rn(ah_mul_rn(a.re, r), a.im);
    return {ah_div_rn(r, d), ah_div_rn(R(-1), d)};
  } else {
    return ah_div_rn(T(1), a);
  }
}
// NumPy's npy_logaddexp and npy_logaddexp2: the larger operand plus log1p of the rest.
template <class T> __device__ T ah_op_logaddexp(T a, T b) {
  if (a == b) return ah_add_rn(a, T(0.693147180559945309417232121458176568));
  const T d = ah_sub_rn(a, b);
  if (d > 0) return ah_add_rn(a, ah_log1p(ah_exp(-d)));
  if (d <= 0) return ah_add_rn(b, ah_log1p(ah_exp(d)));
  return d;
}
template <class T> __device__ T ah_op_logaddexp2(T a, T b) {
  const T log2e = T(1.442695040888963407359924681001892137);
  if (a == b) return ah_add_rn(a, T(1));
  const T d = ah_sub_rn(a, b);
  if (d > 0) return ah_add_rn(a, ah_mul_rn(log2e, ah_log1p(ah_exp2(-d))));
  if (d <= 0) return ah_add_rn(b, ah_mul_rn(log2e, ah_log1p(ah_exp2(d))));
  return d;
}
// NumPy's constants pi / 180 and 180 / pi, divided in the loop's type.
template <class T> __device__ __forceinline__ T ah_op_deg2rad(T a) {
  return ah_mul_rn(a, ah_div_rn(T(3.141592653589793238462643383279502884), T(180)));
}
template <class T> __device__ __forceinline__ T ah_op_rad2deg(T a) {
  return ah_mul_rn(a, ah_div_rn(T(180), T(3.141592653589793238462643383279502884)));
}
// The sign bit, NaN's too.
template <class T> __device__ __forceinline__ bool ah_op_signbit(T a) {
  if constexpr (ah_same<T, float>::value) return __float_as_int(a) < 0;
  else return __double_as_longlong(a) < 0;
}
// kHalf: a float16 loop, which steps float16's bits as NumPy's npy_half_nextafter (equal
// operands, +0.0 and -0.0 too, give b there, as C's nextafter: NumPy 2.5's fix, numpy#31475).
template <bool kHalf, class T> __device__ T ah_op_nextafter(T a, T b) {
  if constexpr (kHalf) {
    if (ah_isnan(a) || ah_isnan(b)) return ah_nan<T>();
    if (a == b) return b;
    const unsigned short x = ah_f2h(a).bits, y = ah_f2h(b).bits;
    ah_half r;
    if (a == 0) {
      r.bits = (unsigned short)((y & 0x8000u) + 1);
    } else if ((x & 0x8000u) == 0) {
      r.bits = (unsigned short)((short)x > (short)y ? x - 1 : x + 1);
    } else {
      r.bits = (unsigned short)(((y & 0x8000u) == 0 || (x & 0x7fffu) > (y & 0x7fffu)) ? x - 1 : x + 1);
    }
    return ah_h2f(r);
  } else if constexpr (ah_same<T, float>::value) {
    return nextafterf(a, b);
  } else {
    return nextafter(a, b);
  }
}
template <class T> __device__ __forceinline__ T ah_op_copysign(T a, T b) { return ah_copysign(a, b); }
// NumPy's npy_heaviside: h0 at either zero, NaN for NaN.
template <class T> __device__ __forceinline__ T ah_op_heaviside(T a, T h0) {
  if (ah_isnan(a)) return ah_nan<T>();
  if (a == 0) return h0;
  return a < 0 ? T(0) : T(1);
}
template <class T> __device__ __forceinline__ T ah_op_square(T a) { return ah_op_multiply(a, a); }
template <class T> __device__ __forceinline__ T ah_op_arctan2(T a, T b) { return ah_atan2(a, b); }
template <class T> __device__ __forceinline__ T ah_op_hypot(T a, T b) { return ah_hypot(a, b); }
// floor, ceil, trunc and rint keep integers (and bool) as they are.
template <class T> __device__ __forceinline__ T ah_op_floor(T a) {
  if constexpr (ah_is_float<T>::value) return ah_floor(a);
  else return a;
}
template <class T> __device__ __forceinline__ T ah_op_ceil(T a) {
  if constexpr (ah_is_float<T>::value) return ah_ceil(a);
  else return a;
}
template <class T> __device__ __forceinline__ T ah_op_trunc(T a) {
  if constexpr (ah_is_float<T>::value) return ah_trunc(a);
  else return a;
}
template <class T> __device__ __forceinline__ T ah_op_rint(T a) {
  if constexpr (ah_is_float<T>::value) return ah_rint(a);
  else if constexpr (ah_is_complex<T>::value) return {ah_rint(a.re), ah_rint(a.im)};
  else return a;
}
// NaN-propagating: the first NaN wins. When the operands compare equal (+0.0 and -0.0),
// NumPy's float16 loop keeps the first (kKeepFirst) and its float32/float64 loops, with SIMD
// min/max semantics, the second.
template <bool kKeepFirst, class T> __device__ __forceinline__ T ah_op_minimum(T a, T b) {
  if constexpr (ah_is_complex<T>::value) return (ah_cisnan(a) || ah_cle(a, b)) ? a : b;
  else if constexpr (ah_is_float<T>::value && kKeepFirst) return (a <= b || ah_isnan(a)) ? a : b;
  else if constexpr (ah_is_float<T>::value) return (ah_isnan(a) || a < b) ? a : b;
  else return b < a ? b : a;
}
template <bool kKeepFirst, class T> __device__ __forceinline__ T ah_op_maximum(T a, T b) {
  if constexpr (ah_is_complex<T>::value) return (ah_cisnan(a) || ah_cle(b, a)) ? a : b;
  else if constexpr (ah_is_float<T>::value && kKeepFirst) return (a >= b || ah_isnan(a)) ? a : b;
  else if constexpr (ah_is_float<T>::value) return (ah_isnan(a) || a > b) ? a : b;
  else return a < b ? b : a;
}
template <class T> __device__ __forceinline__ bool ah_op_equal(T a, T b) {
  if constexpr (ah_is_complex<T>::value) return a.re == b.re && a.im == b.im;
  else return a == b;
}
template <class T> __device__ __forceinline__ bool ah_op_not_equal(T a, T b) {
  if constexpr (ah_is_complex<T>::value) return a.re != b.re || a.im != b.im;
  else return a != b;
}
template <class T> __device__ __forceinline__ bool ah_op_less(T a, T b) {
  if constexpr (ah_is_complex<T>::value) return ah_clt(a, b);
  else return a < b;
}
template <class T> __device__ __forceinline__ bool ah_op_less_equal(T a, T b) {
  if constexpr (ah_is_complex<T>::value) return ah_cle(a, b);
  else return a <= b;
}
template <class T> __device__ __forceinline__ bool ah_op_greater(T a, T b) { return ah_op_less(b, a); }
template <class T> __device__ __forceinline__ bool ah_op_greater_equal(T a, T b) {
  return ah_op_less_equal(b, a);
}
template <class T> __device__ __forceinline__ bool ah_op_logical_and(T a, T b) {
  return ah_nonzero(a) && ah_nonzero(b);
}
template <class T> __device__ __forceinline__ bool ah_op_logical_or(T a, T b) {
  return ah_nonzero(a) || ah_nonzero(b);
}
template <class T> __device__ __forceinline__ bool ah_op_logical_xor(T a, T b) {
  return ah_nonzero(a) != ah_nonzero(b);
}
template <class T> __device__ __forceinline__ bool ah_op_logical_not(T a) { return !ah_nonzero(a); }
template <class T> __device__ __forceinline__ T ah_op_bitwise_and(T a, T b) {
  if constexpr (ah_same<T, bool>::value) return a && b;
  else return a & b;
}
template <class T> __device__ __forceinline__ T ah_op_bitwise_or(T a, T b) {
  if constexpr (ah_same<T, bool>::value) return a || b;
  else return a | b;
}
template <class T> __device__ __forceinline__ T ah_op_bitwise_xor(T a, T b) {
  if constexpr (ah_same<T, bool>::value) return a != b;
  else return a ^ b;
}
template <class T> __device__ __forceinline__ T ah_op_invert(T a) {
  if constexpr (ah_same<T, bool>::value) return !a;
  else return (T)~a;
}
// A shift by the bit width or more (or by a negative amount, which converts to a huge
// unsigned one) shifts every bit out.
template <class T> __device__ __forceinline__ T ah_op_left_shift(T a, T b) {
  typedef typename ah_int<T>::wide W;
  if ((unsigned long long)b >= (unsigned long long)ah_int<T>::bits) return 0;
  return (T)((W)a << b);
}
template <class T> __device__ __forceinline__ T ah_op_right_shift(T a, T b) {
  if ((unsigned long long)b >= (unsigned long long)ah_int<T>::bits) {
    if constexpr (ah_int<T>::is_signed) return a < 0 ? T(-1) : T(0);
    return 0;
  }
  return a >> b;
}
template <class T> __device__ __forceinline__ bool ah_op_isnan(T a) {
  if constexpr (ah_is_complex<T>::value) return ah_cisnan(a);
  else if constexpr (ah_is_float<T>::value) return ah_isnan(a);
  else return false;
}
template <class T> __device__ __forceinline__ bool ah_op_isinf(T a) {
  if constexpr (ah_is_complex<T>::value) return ah_isinf(a.re) || ah_isinf(a.im);
  else if constexpr (ah_is_float<T>::value) return ah_isinf(a);
  else return false;
}
template <class T> __device__ __forceinline__ bool ah_op_isfinite(T a) {
  if constexpr (ah_is_complex<T>::value) return !ah_op_isnan(a) && !ah_op_isinf(a);
  else if constexpr (ah_is_float<T>::value) return !ah_isnan(a) && !ah_isinf(a);
  else return true;
}
// fmax and fmin: NaN only when both are (the first then); ties as maximum and minimum.
template <bool kKeepFirst, class T> __device__ __forceinline__ T ah_op_fmax(T a, T b) {
  if (ah_op_isnan(b)) return a;
  if (ah_op_isnan(a)) return b;
  return ah_op_maximum<kKeepFirst>(a, b);
}
template <bool kKeepFirst, class T> __device__ __forceinline__ T ah_op_fmin(T a, T b) {
  if (ah_op_isnan(b)) return a;
  if (ah_op_isnan(a)) return b;
  return ah_op_minimum<kKeepFirst>(a, b);
}
// NumPy's clip loop (clip.cpp), not minimum(maximum(x, lo), hi): each step keeps the value when
// it is NaN or strictly beyond the bound, else takes the bound, and complex values compare
// lexicographically with no NaN test on the bound. On a tie (+0.0 against -0.0) the float32
// and float64 loops take the bound and the float16 loop (npy_half_ge/le) keeps the value
// (kKeepFirst).
template <bool kKeepFirst, bool kAbove, class T>
__device__ __forceinline__ T ah_clip_bound(T value, T bound) {
  bool beyond;
  if constexpr (ah_is_complex<T>::value) {
    beyond = value.re == bound.re ? (kAbove ? value.im > bound.im : value.im < bound.im)
                                  : (kAbove ? value.re > bound.re : value.re < bound.re);
  } else {
    beyond = kAbove ? value > bound : value < bound;
    if constexpr (kKeepFirst) beyond = beyond || value == bound;
  }
  return (ah_op_isnan(value) || beyond) ? value : bound;
}
template <bool kKeepFirst, class T> __device__ __forceinline__ T ah_op_clip(T a, T lo, T hi) {
  return ah_clip_bound<kKeepFirst, false>(ah_clip_bound<kKeepFirst, true>(a, lo), hi);
}
// ldexp: the exponent read as long long (OperandDType) and clamped to int, as NumPy's loop.
template <class T> __device__ __forceinline__ T ah_op_ldexp(T a, long long e) {
  const int n = e > 2147483647LL ? 2147483647 : (e < -2147483648LL ? (-2147483647 - 1) : (int)e);
  if constexpr (ah_same<T, float>::value) return ldexpf(a, n);
  else return ldexp(a, n);
}
// frexp's and modf's outputs, one op each (ufuncs.def): C's frexp (exponent 0 for 0, infinities
// and NaN) and modf (the fraction keeps a's sign, +-0 for infinities).
template <class T> __device__ __forceinline__ T ah_op__frexp_mantissa(T a) {
  int e;
  if constexpr (ah_same<T, float>::value) return frexpf(a, &e);
  else return frexp(a, &e);
}
template <class T> __device__ __forceinline__ int ah_op__frexp_exponent(T a) {
  int e = 0;
  if constexpr (ah_same<T, float>::value) frexpf(a, &e);
  else frexp(a, &e);
  return (ah_isnan(a) || ah_isinf(a)) ? 0 : e;
}
template <class T> __device__ __forceinline__ T ah_op__modf_fraction(T a) {
  T i;
  if constexpr (ah_same<T, float>::value) return modff(a, &i);
  else return modf(a, &i);
}
template <class T> __device__ __forceinline__ T ah_op__modf_integral(T a) {
  T i;
  if constexpr (ah_same<T, float>::value) modff(a, &i);
  else modf(a, &i);
  return i;
}
template <class T> __device__ __forceinline__ T ah_op__divmod_quotient(T a, T b) {
  return ah_op_floor_divide(a, b);
}
template <class T> __device__ __forceinline__ T ah_op__divmod_remainder(T a, T b) {
  return ah_op_remainder(a, b);
}
// Complex parts: conjugate negates the imaginary part (a NaN's sign too) and keeps reals and
// integers; real and imag take complex operands only.
template <class T> __device__ __forceinline__ T ah_op_conjugate(T a) {
  if constexpr (ah_is_complex<T>::value) return {a.re, -a.im};
  else return a;
}
template <class T> __device__ __forceinline__ typename T::value_type ah_op_real(T a) { return a.re; }
template <class T> __device__ __forceinline__ typename T::value_type ah_op_imag(T a) { return a.im; }
template <class T> __device__ __forceinline__ ah_complex<T> ah_op__complex(T re, T im) { return {re, im}; }
template <class T> __device__ __forceinline__ T ah_op_where(bool c, T a, T b) { return c ? a : b; }
template <class T> __device__ __forceinline__ T ah_op_copy(T a) { return a; }
)ahcuda";

}  // namespace arrayhub
