// Runs a compiled user kernel (user_kernel_program.h) over a call: blocks of indices, lane
// masks for control flow, gathers and scatters of the parameters' elements.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "server/backend/host/host_stop.h"
#include "server/backend/host/host_types.h"
#include "server/backend/host/user_kernel_program.h"
#include "server/common/dtype_visit.h"
#include "server/kernel/loop_bounds.h"

namespace arrayhub::host {
namespace {

using kernel::Parameter;

constexpr int kMaxLanes = 256;

// A raw index out of range, thrown from deep in a block and reported by RunHostUserKernel.
struct RawIndexError {
  int parameter;
  int64_t index;
  int64_t size;
};

struct Lanes {
  uint8_t on[kMaxLanes];
  int active = 0;

  void Recount(int n) {
    active = 0;
    for (int l = 0; l < n; ++l) active += on[l];
  }
};

std::byte* BaseOf(const ArrayView& view) {
  return static_cast<std::byte*>(view.buffer->data()) + view.offset_bytes;
}

struct Bytes16 {
  uint64_t low, high;
};

// Calls f(TypeTag<W>{}) with W an unsigned type of `size` bytes (Bytes16 for 16): lane copies
// move elements as whole words, which the compiler inlines and vectorises.
template <typename F>
void BySize(int64_t size, F&& f) {
  VisitWordOfSize<Bytes16>(size, static_cast<F&&>(f));
}

template <typename W>
W LoadWord(const std::byte* p) {
  W word;
  std::memcpy(&word, p, sizeof(W));
  return word;
}

// Copies `size` bytes per lane; bools read from memory normalise to 0 or 1 (a client's
// buffer may hold any byte, and a C++ bool other than 0 or 1 is undefined).
void LoadLane(std::byte* dst, const std::byte* src, int64_t size, bool is_bool) {
  if (is_bool) {
    *reinterpret_cast<uint8_t*>(dst) = *reinterpret_cast<const uint8_t*>(src) != 0;
  } else {
    std::memcpy(dst, src, static_cast<size_t>(size));
  }
}

// Element k of `n` from base + offsets[k] into lanes (bools normalised).
void Gather(std::byte* dst, const std::byte* base, const int64_t* offsets, int n, int64_t size,
            bool is_bool) {
  if (is_bool) {
    for (int l = 0; l < n; ++l) {
      reinterpret_cast<uint8_t*>(dst)[l] = static_cast<uint8_t>(base[offsets[l]]) != 0;
    }
    return;
  }
  BySize(size, [&](auto tag) {
    using W = typename decltype(tag)::type;
    W* out = reinterpret_cast<W*>(dst);
    for (int l = 0; l < n; ++l) out[l] = LoadWord<W>(base + offsets[l]);
  });
}

void Scatter(std::byte* base, const int64_t* offsets, const std::byte* src, int n, int64_t size) {
  BySize(size, [&](auto tag) {
    using W = typename decltype(tag)::type;
    const W* in = reinterpret_cast<const W*>(src);
    for (int l = 0; l < n; ++l) std::memcpy(base + offsets[l], &in[l], sizeof(W));
  });
}

// A raw parameter: its flat C-order index k to a byte address.
struct RawView {
  std::byte* base = nullptr;
  int64_t size = 0;
  int64_t item = 0;
  bool is_bool = false;
  bool contiguous = true;
  Shape shape;
  std::vector<int64_t> byte_strides;

  std::byte* At(int64_t k) const {
    if (contiguous) return base + k * item;
    int64_t offset = 0;
    for (size_t d = shape.size(); d-- > 0;) {
      offset += (k % shape[d]) * byte_strides[d];
      k /= shape[d];
    }
    return base + offset;
  }
};

// Positions along a set of axes in C order: for a run of consecutive positions, each walked
// parameter's byte offset and the flat index contribution.
class AxisWalk {
 public:
  AxisWalk(std::vector<int64_t> extents, std::vector<std::vector<int64_t>> strides,
           std::vector<int64_t> weights) {
    // Fewer, longer axes: extent-1 axes go, and an axis merges into the next one when every
    // parameter (and the flat index) steps over it as over a run of the next.
    for (size_t d = 0; d < extents.size(); ++d) {
      size_ *= extents[d];
      if (extents[d] == 1) continue;
      if (!extents_.empty()) {
        const size_t last = extents_.size() - 1;
        bool merge = weights_[last] == weights[d] * extents[d];
        for (size_t p = 0; p < strides.size(); ++p) {
          merge = merge && strides_[p][last] == strides[p][d] * extents[d];
        }
        if (merge) {
          extents_[last] *= extents[d];
          weights_[last] = weights[d];
          for (size_t p = 0; p < strides.size(); ++p) strides_[p][last] = strides[p][d];
          continue;
        }
      }
      extents_.push_back(extents[d]);
      weights_.push_back(weights[d]);
      strides_.resize(strides.size());
      for (size_t p = 0; p < strides.size(); ++p) strides_[p].push_back(strides[p][d]);
    }
    strides_.resize(strides.size());
  }
  int64_t size() const { return size_; }
  // Whether parameter p's offsets are start * stride apart, one run: its stride then.
  std::optional<int64_t> LinearStride(size_t p) const {
    if (extents_.size() > 1) return std::nullopt;
    return extents_.empty() ? 0 : strides_[p][0];
  }

  // offsets[p][l], flat[l] for positions start + l, l in [0, n).
  void Fill(int64_t start, int n, std::vector<std::vector<int64_t>>& offsets, int64_t* flat) const {
    const size_t rank = extents_.size();
    const size_t params = strides_.size();
    if (rank <= 1) {  // One run: no odometer.
      const int64_t weight = rank == 0 ? 0 : weights_[0];
      for (int l = 0; l < n; ++l) flat[l] = (start + l) * weight;
      for (size_t p = 0; p < params; ++p) {
        const int64_t stride = rank == 0 ? 0 : strides_[p][0];
        int64_t* out = offsets[p].data();
        for (int l = 0; l < n; ++l) out[l] = (start + l) * stride;
      }
      return;
    }
    std::vector<int64_t>& index = index_;
    std::vector<int64_t>& offset = offset_;
    index.assign(rank, 0);
    offset.assign(params, 0);
    int64_t position = 0;
    int64_t rest = start;
    for (size_t d = rank; d-- > 0;) {
      index[d] = rest % extents_[d];
      rest /= extents_[d];
      position += index[d] * weights_[d];
      for (size_t p = 0; p < params; ++p) offset[p] += index[d] * strides_[p][d];
    }
    for (int l = 0; l < n; ++l) {
      flat[l] = position;
      for (size_t p = 0; p < params; ++p) offsets[p][l] = offset[p];
      for (size_t d = rank; d-- > 0;) {  // Odometer step.
        position += weights_[d];
        for (size_t p = 0; p < params; ++p) offset[p] += strides_[p][d];
        if (++index[d] < extents_[d]) break;
        position -= weights_[d] * extents_[d];
        for (size_t p = 0; p < params; ++p) offset[p] -= strides_[p][d] * extents_[d];
        index[d] = 0;
      }
    }
  }

 private:
  std::vector<int64_t> extents_;
  std::vector<std::vector<int64_t>> strides_;  // [param][axis], bytes.
  std::vector<int64_t> weights_;               // Flat index weight of each axis.
  int64_t size_ = 1;
  mutable std::vector<int64_t> index_;  // Scratch of Fill.
  mutable std::vector<int64_t> offset_;
};

class Runner {
 public:
  Runner(const HostUserKernel& program, const UserKernelCall& call)
      : program_(program),
        call_(call),
        parameters_(program.kernel->parameters()),
        lanes_(program.lanes) {
    // The arena: every slot's lanes, 64-byte aligned.
    int64_t total = 0;
    std::vector<int64_t> offsets;
    for (DType dtype : program.slots) {
      offsets.push_back(total);
      total += (ItemSize(dtype) * lanes_ + 63) / 64 * 64;
    }
    arena_.assign(static_cast<size_t>(total / 64 + 1), Line{});
    std::byte* base = reinterpret_cast<std::byte*>(arena_.data());
    for (int64_t offset : offsets) slot_.push_back(base + offset);

    kernel::CallConstants constants;
    constants.scalars.resize(parameters_.size());
    constants.sizes.resize(parameters_.size());
    raw_.resize(parameters_.size());
    for (size_t k = 0; k < parameters_.size(); ++k) {
      const UserKernelArgument& argument = call.arguments[k];
      if (parameters_[k].scalar) constants.scalars[k] = argument.scalar;
      if (parameters_[k].raw) {
        RawView& raw = raw_[k];
        const ArrayView& view = argument.view;
        raw.base = BaseOf(view);
        raw.item = ItemSize(view.dtype);
        raw.is_bool = view.dtype == DType::kBool;
        raw.shape = view.shape;
        raw.size = 1;
        int64_t expected = 1;
        for (size_t d = view.shape.size(); d-- > 0;) {
          raw.byte_strides.insert(raw.byte_strides.begin(), view.strides[d] * raw.item);
          if (view.shape[d] != 1 && view.strides[d] != expected) raw.contiguous = false;
          expected *= view.shape[d];
        }
        raw.size = expected;
        constants.sizes[k] = raw.size;
      }
    }
    plans_ = kernel::PlanLoops(program.kernel->program(), constants);
    ind_size_ = 1;
    for (int64_t e : call.shape) ind_size_ *= e;
    n_ = lanes_;
    for (const ConstantSlot& constant : program.constants) {
      switch (constant.kind) {
        case ConstantSlot::Kind::kValue:
          Fill(constant.slot, constant.value.data());
          break;
        case ConstantSlot::Kind::kScalar: {
          ElementBytes scalar = call.arguments[constant.param].scalar;
          // A bool other than 0 or 1 would be undefined behaviour in the lane loops.
          if (program.slots[constant.slot] == DType::kBool) {
            scalar[0] = std::byte{scalar[0] != std::byte{0}};
          }
          Fill(constant.slot, scalar.data());
          break;
        }
        case ConstantSlot::Kind::kRawSize:
          Fill(constant.slot, &raw_[constant.param].size);
          break;
        case ConstantSlot::Kind::kIndSize:
          Fill(constant.slot, &ind_size_);
          break;
      }
    }
  }

  void RunElementwise() {
    // Walked parameters: non-raw arrays (inputs and outputs), over every axis.
    const size_t rank = call_.shape.size();
    std::vector<int64_t> weights(rank, 1);
    for (size_t d = rank; d-- > 1;) weights[d - 1] = weights[d] * call_.shape[d];
    std::vector<std::vector<int64_t>> strides;
    for (size_t k = 0; k < parameters_.size(); ++k) {
      if (program_.element_slots[k] < 0) continue;
      walked_.push_back(static_cast<int>(k));
      strides.push_back(ByteStrides(call_.arguments[k].view, rank));
    }
    const AxisWalk walk(call_.shape, std::move(strides), std::move(weights));
    offsets_.assign(walked_.size(), std::vector<int64_t>(lanes_));
    run_.assign(walked_.size(), -1);
    for (int64_t start = 0; start < walk.size(); start += lanes_) {
      n_ = static_cast<int>(std::min<int64_t>(lanes_, walk.size() - start));
      bool all_runs = true;
      for (size_t w = 0; w < walked_.size(); ++w) {
        // A contiguous run of this parameter: whole-block copies, no per-lane offsets.
        const std::optional<int64_t> stride = walk.LinearStride(w);
        run_[w] = stride && *stride == ItemSize(call_.arguments[walked_[w]].view.dtype)
                      ? start * *stride
                      : -1;
        all_runs = all_runs && run_[w] >= 0;
      }
      if (all_runs) {
        for (int l = 0; l < n_; ++l) index_[l] = start + l;
      } else {
        walk.Fill(start, n_, offsets_, index_);
      }
      LoadElements(/*outputs_too=*/true);
      Lanes all = AllLanes();
      Run(program_.operation, all);
      StoreOutputs();
      PollStop(n_);
    }
  }

  void RunReduction() {
    const size_t rank = call_.shape.size();
    std::vector<bool> reduced(rank, false);
    for (int64_t axis : call_.reduce_axes) reduced[axis] = true;
    std::vector<int64_t> weights(rank, 1);
    for (size_t d = rank; d-- > 1;) weights[d - 1] = weights[d] * call_.shape[d];
    std::vector<int64_t> kept_extents, red_extents, kept_weights, red_weights;
    for (size_t d = 0; d < rank; ++d) {
      (reduced[d] ? red_extents : kept_extents).push_back(call_.shape[d]);
      (reduced[d] ? red_weights : kept_weights).push_back(weights[d]);
    }
    std::vector<std::vector<int64_t>> kept_strides, red_strides;
    for (size_t k = 0; k < parameters_.size(); ++k) {
      if (program_.element_slots[k] < 0) continue;
      walked_.push_back(static_cast<int>(k));
      const ArrayView& view = call_.arguments[k].view;
      std::vector<int64_t> kept, red;
      if (parameters_[k].output) {
        kept = ByteStrides(view, kept_extents.size());
        red.assign(red_extents.size(), 0);
      } else {
        const std::vector<int64_t> all = ByteStrides(view, rank);
        for (size_t d = 0; d < rank; ++d) (reduced[d] ? red : kept).push_back(all[d]);
      }
      kept_strides.push_back(std::move(kept));
      red_strides.push_back(std::move(red));
    }
    const AxisWalk kept(kept_extents, std::move(kept_strides), kept_weights);
    const AxisWalk red(red_extents, std::move(red_strides), red_weights);
    offsets_.assign(walked_.size(), std::vector<int64_t>(lanes_));
    run_.assign(walked_.size(), -1);
    kept_offsets_.assign(walked_.size(), std::vector<int64_t>(lanes_));
    red_offsets_.assign(walked_.size(), std::vector<int64_t>(lanes_));

    if (program_.identity_result >= 0) {
      n_ = 1;
      Lanes one = AllLanes();
      Run(program_.identity, one);
      std::memcpy(identity_.data(), slot_[program_.identity_result], ItemSize(ReduceType()));
    }
    if (kept.size() >= lanes_) {
      ReduceAcrossOutputs(kept, red);
    } else {
      ReduceWithinOutputs(kept, red);
    }
  }

 private:
  struct alignas(64) Line {
    std::byte bytes[64];
  };

  DType ReduceType() const { return program_.kernel->reduce_type(); }

  // Byte strides of `view` over `rank` axes (a scalar or rank-0 view: none).
  static std::vector<int64_t> ByteStrides(const ArrayView& view, size_t rank) {
    std::vector<int64_t> strides(rank, 0);
    const int64_t item = ItemSize(view.dtype);
    for (size_t d = 0; d < rank && d < view.strides.size(); ++d) {
      strides[d] = view.strides[d] * item;
    }
    return strides;
  }

  Lanes AllLanes() const {
    Lanes lanes;
    std::memset(lanes.on, 0, sizeof lanes.on);
    std::memset(lanes.on, 1, static_cast<size_t>(n_));
    lanes.active = n_;
    return lanes;
  }

  // Each walked parameter's element i into its slot, for the lanes' offsets_.
  void LoadElements(bool outputs_too) {
    for (size_t w = 0; w < walked_.size(); ++w) {
      const int k = walked_[w];
      if (parameters_[k].output && !(outputs_too && program_.load_output[k])) continue;
      const ArrayView& view = call_.arguments[k].view;
      const std::byte* base = BaseOf(view);
      const int64_t item = ItemSize(view.dtype);
      const bool is_bool = view.dtype == DType::kBool;
      std::byte* slot = slot_[program_.element_slots[k]];
      const std::vector<int64_t>& offsets = offsets_[w];
      if (!is_bool && run_[w] >= 0) {
        std::memcpy(slot, base + run_[w], static_cast<size_t>(n_ * item));
        continue;
      }
      Gather(slot, base, offsets.data(), n_, item, is_bool);
    }
  }

  void StoreOutputs() {
    for (size_t w = 0; w < walked_.size(); ++w) {
      const int k = walked_[w];
      if (!parameters_[k].output) continue;
      const ArrayView& view = call_.arguments[k].view;
      std::byte* base = BaseOf(view);
      const int64_t item = ItemSize(view.dtype);
      const std::byte* slot = slot_[program_.element_slots[k]];
      const std::vector<int64_t>& offsets = offsets_[w];
      if (run_[w] >= 0) {
        std::memcpy(base + run_[w], slot, static_cast<size_t>(n_ * item));
        continue;
      }
      Scatter(base, offsets.data(), slot, n_, item);
    }
  }

  // Many outputs: lanes are outputs, and the reduced positions go by one at a time.
  void ReduceAcrossOutputs(const AxisWalk& kept, const AxisWalk& red) {
    const int64_t item = ItemSize(ReduceType());
    std::byte* acc = slot_[program_.post_map_a];
    int64_t kept_flat[kMaxLanes];
    int64_t red_flat[kMaxLanes];
    for (int64_t start = 0; start < kept.size(); start += lanes_) {
      n_ = static_cast<int>(std::min<int64_t>(lanes_, kept.size() - start));
      kept.Fill(start, n_, kept_offsets_, kept_flat);
      bool first = program_.identity_result < 0;
      if (!first) {
        for (int l = 0; l < n_; ++l) std::memcpy(acc + l * item, identity_.data(), item);
      }
      for (int64_t r = 0; r < red.size(); ++r) {
        red.Fill(r, 1, red_offsets_, red_flat);
        for (size_t w = 0; w < walked_.size(); ++w) {
          for (int l = 0; l < n_; ++l) offsets_[w][l] = kept_offsets_[w][l] + red_offsets_[w][0];
        }
        for (int l = 0; l < n_; ++l) index_[l] = kept_flat[l] + red_flat[0];
        LoadElements(/*outputs_too=*/false);
        Lanes all = AllLanes();
        Run(program_.map, all);
        const std::byte* mapped = slot_[program_.map_result];
        if (first) {
          std::memcpy(acc, mapped, static_cast<size_t>(n_ * item));
          first = false;
        } else {
          Combine(acc, mapped, n_);
        }
        PollStop(n_);
      }
      FinishOutputs(kept_offsets_);
    }
  }

  // Few outputs: one at a time, lanes are reduced positions, combined pairwise.
  void ReduceWithinOutputs(const AxisWalk& kept, const AxisWalk& red) {
    const int64_t item = ItemSize(ReduceType());
    std::byte* acc = slot_[program_.post_map_a];
    std::byte* work = slot_[program_.work];
    int64_t kept_flat[kMaxLanes];
    int64_t red_flat[kMaxLanes];
    std::vector<std::vector<int64_t>> output_offsets(walked_.size(), std::vector<int64_t>(lanes_));
    const int outputs = static_cast<int>(kept.size());
    kept.Fill(0, outputs, kept_offsets_, kept_flat);
    for (int o = 0; o < outputs; ++o) {
      bool first = program_.identity_result < 0;
      if (!first) std::memcpy(acc + o * item, identity_.data(), item);
      for (int64_t start = 0; start < red.size(); start += lanes_) {
        n_ = static_cast<int>(std::min<int64_t>(lanes_, red.size() - start));
        red.Fill(start, n_, red_offsets_, red_flat);
        for (size_t w = 0; w < walked_.size(); ++w) {
          for (int l = 0; l < n_; ++l) offsets_[w][l] = kept_offsets_[w][o] + red_offsets_[w][l];
        }
        for (int l = 0; l < n_; ++l) index_[l] = kept_flat[o] + red_flat[l];
        LoadElements(/*outputs_too=*/false);
        Lanes all = AllLanes();
        Run(program_.map, all);
        std::memcpy(work, slot_[program_.map_result], static_cast<size_t>(n_ * item));
        // Pairwise: halves combine until one value is left.
        for (int m = n_; m > 1;) {
          const int half = m / 2;
          std::memcpy(slot_[program_.reduce_a], work, static_cast<size_t>(half * item));
          std::memcpy(slot_[program_.reduce_b], work + half * item,
                      static_cast<size_t>(half * item));
          RunReduce(half);
          std::memcpy(work, slot_[program_.reduce_result], static_cast<size_t>(half * item));
          if (m % 2 != 0) std::memcpy(work + half * item, work + (m - 1) * item, item);
          m = half + m % 2;
        }
        if (first) {
          std::memcpy(acc + o * item, work, item);
          first = false;
        } else {
          Combine(acc + o * item, work, 1);
        }
        PollStop(n_);
      }
    }
    n_ = outputs;
    FinishOutputs(kept_offsets_);
  }

  // acc = reduce(acc, value) on n lanes.
  void Combine(std::byte* acc, const std::byte* value, int n) {
    const int64_t item = ItemSize(ReduceType());
    std::memcpy(slot_[program_.reduce_a], acc, static_cast<size_t>(n * item));
    std::memcpy(slot_[program_.reduce_b], value, static_cast<size_t>(n * item));
    RunReduce(n);
    std::memcpy(acc, slot_[program_.reduce_result], static_cast<size_t>(n * item));
  }

  void RunReduce(int n) {
    const int saved = n_;
    n_ = n;
    Lanes all = AllLanes();
    Run(program_.reduce, all);
    n_ = saved;
  }

  // post_map_expr on n_ lanes (outputs) whose a is in post_map_a; then the outputs go out.
  void FinishOutputs(const std::vector<std::vector<int64_t>>& kept_offsets) {
    if (n_ == 0) return;
    for (size_t w = 0; w < walked_.size(); ++w) {
      std::copy(kept_offsets[w].begin(), kept_offsets[w].begin() + n_, offsets_[w].begin());
    }
    LoadOutputs();
    Lanes all = AllLanes();
    Run(program_.post_map, all);
    StoreOutputs();
  }

  void LoadOutputs() {
    for (size_t w = 0; w < walked_.size(); ++w) {
      const int k = walked_[w];
      if (!parameters_[k].output || !program_.load_output[k]) continue;
      const ArrayView& view = call_.arguments[k].view;
      const int64_t item = ItemSize(view.dtype);
      std::byte* slot = slot_[program_.element_slots[k]];
      Gather(slot, BaseOf(view), offsets_[w].data(), n_, item, view.dtype == DType::kBool);
    }
  }

  // Runs `code` on the active lanes of `lanes`, which break, continue and return narrow.
  void Run(const std::vector<SlotOp>& code, Lanes& lanes) {
    for (const SlotOp& op : code) {
      if (lanes.active == 0) return;
      Step(op, lanes);
    }
  }

  void Step(const SlotOp& op, Lanes& lanes) {
    switch (op.kind) {
      case SlotOp::Kind::kCompute: {
        const std::byte* src[3] = {
            op.src[0] >= 0 ? slot_[op.src[0]] : nullptr,
            op.src[1] >= 0 ? slot_[op.src[1]] : nullptr,
            op.src[2] >= 0 ? slot_[op.src[2]] : nullptr,
        };
        op.fn(n_, slot_[op.dst], src);
        return;
      }
      case SlotOp::Kind::kFill:
        Fill(op.dst, op.value.data());
        return;
      case SlotOp::Kind::kIndex:
        std::memcpy(slot_[op.dst], index_, static_cast<size_t>(n_) * sizeof(int64_t));
        return;
      case SlotOp::Kind::kCopy: {
        const int64_t item = ItemSize(program_.slots[op.dst]);
        if (lanes.active == n_) {
          std::memmove(slot_[op.dst], slot_[op.src[0]], static_cast<size_t>(n_ * item));
          return;
        }
        BySize(item, [&](auto tag) {
          using W = typename decltype(tag)::type;
          W* dst = reinterpret_cast<W*>(slot_[op.dst]);
          const W* src = reinterpret_cast<const W*>(slot_[op.src[0]]);
          for (int l = 0; l < n_; ++l) {
            if (lanes.on[l]) dst[l] = src[l];
          }
        });
        return;
      }
      case SlotOp::Kind::kRawLoad:
        RawLoad(op, lanes);
        return;
      case SlotOp::Kind::kRawStore:
        RawStore(op, lanes);
        return;
      case SlotOp::Kind::kIf: {
        const auto [yes, no] = Branch(op, lanes);
        for (int l = 0; l < n_; ++l) lanes.on[l] = yes.on[l] | no.on[l];
        lanes.Recount(n_);
        return;
      }
      case SlotOp::Kind::kFor:
        For(op, lanes);
        return;
      case SlotOp::Kind::kBreak:
        for (int l = 0; l < n_; ++l) {
          if (lanes.on[l]) broken_[l] = 1;
        }
        [[fallthrough]];
      case SlotOp::Kind::kContinue:
        std::memset(lanes.on, 0, static_cast<size_t>(n_));
        lanes.active = 0;
        return;
      case SlotOp::Kind::kReturn: {
        const int64_t item = ItemSize(program_.slots[op.dst]);
        BySize(item, [&](auto tag) {
          using W = typename decltype(tag)::type;
          W* dst = reinterpret_cast<W*>(slot_[op.dst]);
          const W* src = reinterpret_cast<const W*>(slot_[op.src[0]]);
          for (int l = 0; l < n_; ++l) {
            if (lanes.on[l]) dst[l] = src[l];
            returned_[l] |= lanes.on[l];
          }
        });
        std::memset(lanes.on, 0, static_cast<size_t>(n_));
        lanes.active = 0;
        return;
      }
      case SlotOp::Kind::kCall:
        Call(op, lanes);
        return;
      case SlotOp::Kind::kAnd:
      case SlotOp::Kind::kOr: {
        const bool is_and = op.kind == SlotOp::Kind::kAnd;
        const bool* left = reinterpret_cast<const bool*>(slot_[op.src[0]]);
        Lanes right = lanes;
        for (int l = 0; l < n_; ++l) right.on[l] = lanes.on[l] & (left[l] == is_and);
        right.Recount(n_);
        Run(op.body, right);
        const bool* value = reinterpret_cast<const bool*>(slot_[op.src[1]]);
        bool* out = reinterpret_cast<bool*>(slot_[op.dst]);
        for (int l = 0; l < n_; ++l) {
          out[l] = left[l] == is_and ? (right.on[l] ? value[l] : false) : !is_and;
        }
        return;
      }
      case SlotOp::Kind::kSelect: {
        Branch(op, lanes);
        const std::byte* src[3] = {slot_[op.src[0]], slot_[op.src[1]], slot_[op.src[2]]};
        op.fn(n_, slot_[op.dst], src);
        return;
      }
    }
  }

  void Fill(int slot, const void* value) {
    BySize(ItemSize(program_.slots[slot]), [&](auto tag) {
      using W = typename decltype(tag)::type;
      const W word = LoadWord<W>(static_cast<const std::byte*>(value));
      W* dst = reinterpret_cast<W*>(slot_[slot]);
      for (int l = 0; l < n_; ++l) dst[l] = word;
    });
  }

  const RawView& CheckedRaw(const SlotOp& op, int64_t k) const {
    const RawView& raw = raw_[op.param];
    if (k < 0 || k >= raw.size) throw RawIndexError{op.param, k, raw.size};
    return raw;
  }

  // if and select: op.body on the lanes where the condition (slot src[0]) holds, op.other on
  // the rest; the two lane sets as the branches leave them.
  std::pair<Lanes, Lanes> Branch(const SlotOp& op, const Lanes& lanes) {
    const bool* condition = reinterpret_cast<const bool*>(slot_[op.src[0]]);
    Lanes yes = lanes;
    Lanes no = lanes;
    for (int l = 0; l < n_; ++l) {
      yes.on[l] = lanes.on[l] & condition[l];
      no.on[l] = lanes.on[l] & !condition[l];
    }
    yes.Recount(n_);
    no.Recount(n_);
    Run(op.body, yes);
    Run(op.other, no);
    return {yes, no};
  }

  void RawLoad(const SlotOp& op, const Lanes& lanes) {
    const int64_t* index = reinterpret_cast<const int64_t*>(slot_[op.src[0]]);
    const RawView& raw = raw_[op.param];
    std::byte* dst = slot_[op.dst];
    for (int l = 0; l < n_; ++l) {
      const int64_t k = index[l];  // Read before dst may overwrite it (same slot).
      if (!lanes.on[l]) {
        std::memset(dst + l * raw.item, 0, static_cast<size_t>(raw.item));
        continue;
      }
      LoadLane(dst + l * raw.item, CheckedRaw(op, k).At(k), raw.item, raw.is_bool);
    }
  }

  void RawStore(const SlotOp& op, const Lanes& lanes) {
    const int64_t* index = reinterpret_cast<const int64_t*>(slot_[op.src[0]]);
    const std::byte* value = slot_[op.src[1]];
    const RawView& raw = raw_[op.param];
    for (int l = 0; l < n_; ++l) {
      if (!lanes.on[l]) continue;
      std::memcpy(CheckedRaw(op, index[l]).At(index[l]), value + l * raw.item,
                  static_cast<size_t>(raw.item));
    }
  }

  void For(const SlotOp& op, Lanes& lanes) {
    const kernel::LoopPlan& plan = plans_[op.loop];
    uint8_t broken[kMaxLanes] = {};
    uint8_t* const saved_broken = broken_;
    broken_ = broken;
    Lanes live = lanes;
    for (int64_t n = 0; n < plan.trips && live.active > 0; ++n) {
      // first + n * step stays inside the variable's dtype (loop_bounds.h): wrapping 64-bit
      // arithmetic gives its exact bits.
      const uint64_t value = static_cast<uint64_t>(plan.first) +
                             static_cast<uint64_t>(n) * static_cast<uint64_t>(op.step);
      Fill(op.dst, &value);  // Little-endian: the low bytes are the variable's dtype's.
      Lanes iteration = live;
      Run(op.body, iteration);
      for (int l = 0; l < n_; ++l) live.on[l] &= !(broken[l] | returned_[l]);
      live.Recount(n_);
      PollStop(n_);
    }
    broken_ = saved_broken;
    for (int l = 0; l < n_; ++l) lanes.on[l] &= !returned_[l];
    lanes.Recount(n_);
  }

  void Call(const SlotOp& op, const Lanes& lanes) {
    const CompiledFunction& function = program_.functions[op.function];
    for (size_t k = 0; k < op.args.size(); ++k) {
      const int64_t item = ItemSize(program_.slots[op.args[k]]);
      std::memcpy(slot_[function.parameters[k]], slot_[op.args[k]], static_cast<size_t>(n_ * item));
    }
    const int64_t item = ItemSize(program_.slots[function.result]);
    std::memset(slot_[function.result], 0, static_cast<size_t>(n_ * item));  // Falls off: 0.
    uint8_t returned[kMaxLanes] = {};
    uint8_t* const saved_returned = returned_;
    uint8_t* const saved_broken = broken_;
    returned_ = returned;
    broken_ = nullptr;
    Lanes inner = lanes;
    Run(function.code, inner);
    returned_ = saved_returned;
    broken_ = saved_broken;
    std::memcpy(slot_[op.dst], slot_[function.result], static_cast<size_t>(n_ * item));
  }

  const HostUserKernel& program_;
  const UserKernelCall& call_;
  const std::vector<Parameter>& parameters_;
  const int lanes_;
  std::vector<Line> arena_;
  std::vector<std::byte*> slot_;
  std::vector<RawView> raw_;
  std::vector<kernel::LoopPlan> plans_;
  int64_t ind_size_ = 0;
  ElementBytes identity_{};

  std::vector<int> walked_;  // Parameters with element slots.
  std::vector<std::vector<int64_t>> offsets_, kept_offsets_, red_offsets_;
  std::vector<int64_t> run_;  // Per walked parameter: the block's byte offset when a run, or -1.
  int n_ = 0;                 // Lanes of the block.
  int64_t index_[kMaxLanes] = {};
  uint8_t no_lanes_[kMaxLanes] = {};
  uint8_t* broken_ = nullptr;
  uint8_t* returned_ = no_lanes_;  // Outside functions nothing returns.
};

}  // namespace

absl::Status RunHostUserKernel(const UserKernelCall& call) {
  const auto& program = static_cast<const HostUserKernel&>(*call.prepared);
  for (int64_t extent : call.shape) {
    if (extent == 0 && call.kernel->kind() == kernel::KernelKind::kElementwise) {
      return absl::OkStatus();
    }
  }
  try {
    Runner runner(program, call);
    if (call.kernel->kind() == kernel::KernelKind::kElementwise) {
      runner.RunElementwise();
    } else {
      runner.RunReduction();
    }
  } catch (const RawIndexError& error) {
    return absl::InvalidArgumentError(
        fmt::format("kernel {}: index {} is out of bounds for raw parameter '{}' of size {}",
                    call.kernel->name(), error.index,
                    call.kernel->parameters()[error.parameter].name, error.size));
  }
  return absl::OkStatus();
}

}  // namespace arrayhub::host
