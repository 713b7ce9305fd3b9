// numpy.fft's functions (fft.h) on Client::Fft, Arange and the roll ArrayOp, as the Python
// client's arrayhub.fft makes them (client_python/arrayhub/fft.py).
#include <string>
#include <utility>

#include "arrayhub/fft.h"
#include "arrayhub/functions.h"
#include "composed.h"

namespace arrayhub::client::fft {
namespace {

using detail::ClientOf;

Array OneAxis(std::string_view op, const Array& a, std::optional<int64_t> n, int64_t axis,
              std::string_view norm) {
  FftOptions options;
  options.axes = std::vector<int64_t>{axis};
  if (n) options.s = std::vector<int64_t>{*n};
  options.norm = std::string(norm);
  return ClientOf(a).Fft(op, a, options);
}

Array SeveralAxes(std::string_view op, const Array& a, const Lengths& s, const Lengths& axes,
                  std::string_view norm) {
  return ClientOf(a).Fft(op, a, FftOptions{.axes = axes, .s = s, .norm = std::string(norm)});
}

// numpy.roll: `x` shifted along each axis (absent: the flattened array) by its shift.
Array Roll(const Array& x, std::optional<std::vector<int64_t>> axes, std::vector<int64_t> shifts) {
  return std::move(
      ClientOf(x).ArrayOp("roll", {x}, {.axis = std::move(axes), .ints = std::move(shifts)})[0]);
}

// The roll of every one of `axes` (absent: all) by `sign` times half its length.
Array HalfRoll(const Array& x, const Lengths& axes, int64_t sign) {
  std::vector<int64_t> rolled;
  if (axes) {
    rolled = *axes;
  } else {
    for (size_t i = 0; i < x.shape().size(); ++i) rolled.push_back(static_cast<int64_t>(i));
  }
  const auto rank = static_cast<int64_t>(x.shape().size());
  std::vector<int64_t> shifts;
  for (const int64_t axis : rolled) {
    shifts.push_back(sign * (x.shape()[detail::NormalizeAxis(axis, rank)] / 2));
  }
  return Roll(x, rolled, shifts);
}

}  // namespace

Array fft(const Array& a, std::optional<int64_t> n, int64_t axis, std::string_view norm) {
  return OneAxis("fft", a, n, axis, norm);
}
Array ifft(const Array& a, std::optional<int64_t> n, int64_t axis, std::string_view norm) {
  return OneAxis("ifft", a, n, axis, norm);
}
Array rfft(const Array& a, std::optional<int64_t> n, int64_t axis, std::string_view norm) {
  return OneAxis("rfft", a, n, axis, norm);
}
Array irfft(const Array& a, std::optional<int64_t> n, int64_t axis, std::string_view norm) {
  return OneAxis("irfft", a, n, axis, norm);
}
Array hfft(const Array& a, std::optional<int64_t> n, int64_t axis, std::string_view norm) {
  return OneAxis("hfft", a, n, axis, norm);
}
Array ihfft(const Array& a, std::optional<int64_t> n, int64_t axis, std::string_view norm) {
  return OneAxis("ihfft", a, n, axis, norm);
}

Array fft2(const Array& a, const Lengths& s, const std::vector<int64_t>& axes,
           std::string_view norm) {
  return SeveralAxes("fft", a, s, axes, norm);
}
Array ifft2(const Array& a, const Lengths& s, const std::vector<int64_t>& axes,
            std::string_view norm) {
  return SeveralAxes("ifft", a, s, axes, norm);
}
Array rfft2(const Array& a, const Lengths& s, const std::vector<int64_t>& axes,
            std::string_view norm) {
  return SeveralAxes("rfft", a, s, axes, norm);
}
Array irfft2(const Array& a, const Lengths& s, const std::vector<int64_t>& axes,
             std::string_view norm) {
  return SeveralAxes("irfft", a, s, axes, norm);
}
Array fftn(const Array& a, const Lengths& s, const Lengths& axes, std::string_view norm) {
  return SeveralAxes("fft", a, s, axes, norm);
}
Array ifftn(const Array& a, const Lengths& s, const Lengths& axes, std::string_view norm) {
  return SeveralAxes("ifft", a, s, axes, norm);
}
Array rfftn(const Array& a, const Lengths& s, const Lengths& axes, std::string_view norm) {
  return SeveralAxes("rfft", a, s, axes, norm);
}
Array irfftn(const Array& a, const Lengths& s, const Lengths& axes, std::string_view norm) {
  return SeveralAxes("irfft", a, s, axes, norm);
}

Array fftfreq(Client& client, int64_t n, double d) {
  // NumPy's values: the integers 0 .. (n - 1) / 2 then -(n / 2) .. -1, times 1 / (n d).
  const Array integers = client.Arange(-(n / 2), (n - 1) / 2 + 1);
  return multiply(Roll(integers, std::nullopt, {-(n / 2)}), 1.0 / (static_cast<double>(n) * d));
}

Array rfftfreq(Client& client, int64_t n, double d) {
  return multiply(client.Arange(0, n / 2 + 1), 1.0 / (static_cast<double>(n) * d));
}

Array fftshift(const Array& x, const Lengths& axes) { return HalfRoll(x, axes, 1); }
Array ifftshift(const Array& x, const Lengths& axes) { return HalfRoll(x, axes, -1); }

}  // namespace arrayhub::client::fft
