// numpy.fft under NumPy's names (src/fft_functions.cc): each transform is one Client::Fft over
// the axes its name implies, pipelined like any op giving one array; fftfreq and rfftfreq make
// their arrays on the server, and fftshift and ifftshift are rolls. `norm` is "backward" (or
// empty), "ortho" or "forward"; errors are NumPy's.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "arrayhub/client.h"

namespace arrayhub::client::fft {

// One axis: n points along `axis` (absent: the axis's length; irfft and hfft: 2 (m - 1)).
Array fft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
          std::string_view norm = "");
Array ifft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           std::string_view norm = "");
Array rfft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           std::string_view norm = "");
Array irfft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            std::string_view norm = "");
Array hfft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
           std::string_view norm = "");
Array ihfft(const Array& a, std::optional<int64_t> n = std::nullopt, int64_t axis = -1,
            std::string_view norm = "");

// Several axes: the lengths `s` along `axes` (fftn's defaults: absent axes are the last
// s->size() axes, or every axis; the 2-D forms default to the last two).
using Lengths = std::optional<std::vector<int64_t>>;
Array fft2(const Array& a, const Lengths& s = std::nullopt,
           const std::vector<int64_t>& axes = {-2, -1}, std::string_view norm = "");
Array ifft2(const Array& a, const Lengths& s = std::nullopt,
            const std::vector<int64_t>& axes = {-2, -1}, std::string_view norm = "");
Array rfft2(const Array& a, const Lengths& s = std::nullopt,
            const std::vector<int64_t>& axes = {-2, -1}, std::string_view norm = "");
Array irfft2(const Array& a, const Lengths& s = std::nullopt,
             const std::vector<int64_t>& axes = {-2, -1}, std::string_view norm = "");
Array fftn(const Array& a, const Lengths& s = std::nullopt, const Lengths& axes = std::nullopt,
           std::string_view norm = "");
Array ifftn(const Array& a, const Lengths& s = std::nullopt, const Lengths& axes = std::nullopt,
            std::string_view norm = "");
Array rfftn(const Array& a, const Lengths& s = std::nullopt, const Lengths& axes = std::nullopt,
            std::string_view norm = "");
Array irfftn(const Array& a, const Lengths& s = std::nullopt, const Lengths& axes = std::nullopt,
             std::string_view norm = "");

// The sample frequencies of an n-point fft, [0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (n d),
// and of an rfft, [0, 1, ..., n / 2] / (n d): float64 arrays of `client`'s session.
Array fftfreq(Client& client, int64_t n, double d = 1.0);
Array rfftfreq(Client& client, int64_t n, double d = 1.0);

// The zero frequency moved to the middle of each of `axes` (absent: every axis), a roll by half
// the axis; ifftshift undoes it (the two differ for odd lengths).
Array fftshift(const Array& x, const Lengths& axes = std::nullopt);
Array ifftshift(const Array& x, const Lengths& axes = std::nullopt);

}  // namespace arrayhub::client::fft
