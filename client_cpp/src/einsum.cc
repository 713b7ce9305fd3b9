// numpy.einsum (functions.h): the subscripts parsed and checked, and the contraction ordered, as
// NumPy's einsum_path does (its greedy path, with its messages); each step runs as the Python
// client runs it (client_python/arrayhub/_einsum.py): diagonals of repeated letters, sums of the
// letters nothing later needs, then one batched matmul per pair of operands (a broadcast multiply
// when no letter is contracted).
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "composed.h"

namespace arrayhub::client {
namespace {

using detail::ThrowInvalid;
using Letters = std::set<char>;

constexpr std::string_view kSymbols = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

bool Has(std::string_view text, char c) { return text.find(c) != std::string_view::npos; }

// The explicit form "in,in,...->out" of `subscripts` for operands of these ranks, ellipses
// replaced by unused letters (NumPy's _parse_einsum_input).
std::pair<std::vector<std::string>, std::string> Parse(std::string subscripts,
                                                       const std::vector<int64_t>& ranks) {
  std::erase(subscripts, ' ');
  for (char c : subscripts) {
    if (!Has(kSymbols, c) && !Has(",->.", c)) {
      ThrowInvalid(std::string("Character ") + c + " is not a valid symbol.");
    }
  }
  const size_t arrow = subscripts.find("->");
  if ((Has(subscripts, '-') || Has(subscripts, '>')) &&
      (std::count(subscripts.begin(), subscripts.end(), '-') > 1 ||
       std::count(subscripts.begin(), subscripts.end(), '>') > 1 || arrow == std::string::npos)) {
    ThrowInvalid("Subscripts can only contain one '->'.");
  }
  const bool explicit_output = arrow != std::string::npos;
  std::string output = explicit_output ? subscripts.substr(arrow + 2) : "";
  std::vector<std::string> inputs(1);
  for (char c : subscripts.substr(0, arrow)) {
    if (c == ',') {
      inputs.emplace_back();
    } else {
      inputs.back() += c;
    }
  }
  if (inputs.size() != ranks.size()) {
    ThrowInvalid("Number of einsum subscripts must be equal to the number of operands.");
  }
  std::string unused;
  for (char c : kSymbols) {
    if (!Has(subscripts, c)) unused += c;
  }
  int64_t longest = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string& term = inputs[i];
    if (!Has(term, '.')) continue;
    if (std::count(term.begin(), term.end(), '.') != 3 || term.find("...") == std::string::npos) {
      ThrowInvalid("Invalid Ellipses.");
    }
    const int64_t count =
        ranks[i] == 0 ? 0 : std::max<int64_t>(ranks[i], 1) - static_cast<int64_t>(term.size() - 3);
    if (count < 0) ThrowInvalid("Ellipses lengths do not match.");
    longest = std::max(longest, count);
    term.replace(term.find("..."), 3, unused.substr(unused.size() - count));
  }
  const std::string ellipsis = unused.substr(unused.size() - longest);
  if (explicit_output) {
    if (const size_t dots = output.find("..."); dots != std::string::npos) {
      output.replace(dots, 3, ellipsis);
    }
  } else {
    // Implicit: the ellipsis letters, then the letters used once, in alphabetical order.
    std::string all;
    for (const std::string& term : inputs) all += term;
    std::string once;
    for (char c : Letters(all.begin(), all.end())) {
      if (std::count(all.begin(), all.end(), c) == 1 && !Has(ellipsis, c)) once += c;
    }
    output = ellipsis + once;
  }
  for (char c : output) {
    if (std::count(output.begin(), output.end(), c) != 1) {
      ThrowInvalid(std::string("Output character ") + c +
                   " appeared more than once in the output.");
    }
    if (std::none_of(inputs.begin(), inputs.end(),
                     [c](const std::string& term) { return Has(term, c); })) {
      ThrowInvalid(std::string("Output character ") + c + " did not appear in the input");
    }
  }
  return {inputs, output};
}

// -- NumPy's greedy path ----------------------------------------------------------------------

struct Sizes {
  std::vector<std::pair<char, int64_t>> of;
  int64_t operator[](char c) const {
    return std::find_if(of.begin(), of.end(), [c](const auto& e) { return e.first == c; })->second;
  }
  double Of(const Letters& letters) const {
    double size = 1;
    for (char c : letters) size *= static_cast<double>((*this)[c]);
    return size;
  }
};

struct Contraction {
  Letters result;
  std::vector<Letters> remaining;  // The other operands' letters, then the result's.
  Letters removed;
  Letters contracted;
};

// NumPy's _find_contraction of the operands at `positions`.
Contraction Find(const std::vector<size_t>& positions, const std::vector<Letters>& inputs,
                 const Letters& output) {
  Contraction c;
  Letters kept = output;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (std::find(positions.begin(), positions.end(), i) != positions.end()) {
      c.contracted.insert(inputs[i].begin(), inputs[i].end());
    } else {
      c.remaining.push_back(inputs[i]);
      kept.insert(inputs[i].begin(), inputs[i].end());
    }
  }
  for (char l : c.contracted) (kept.count(l) ? c.result : c.removed).insert(l);
  c.remaining.push_back(c.result);
  return c;
}

double FlopCount(const Contraction& c, size_t terms, const Sizes& sizes) {
  double factor = std::max<double>(1, static_cast<double>(terms) - 1);
  if (!c.removed.empty()) factor += 1;
  return sizes.Of(c.contracted) * factor;
}

struct Candidate {
  std::pair<double, double> sort;  // (-removed size, cost): the smallest wins.
  std::pair<size_t, size_t> positions;
  std::vector<Letters> inputs;
};

std::vector<std::vector<size_t>> GreedyPath(std::vector<Letters> inputs, const Letters& output,
                                            const Sizes& sizes, double memory_limit) {
  const Contraction all = Find(
      [&] {
        std::vector<size_t> every(inputs.size());
        for (size_t i = 0; i < every.size(); ++i) every[i] = i;
        return every;
      }(),
      inputs, output);
  const double naive_cost = FlopCount(all, inputs.size(), sizes);
  double path_cost = 0;
  std::vector<std::vector<size_t>> path;
  std::vector<Candidate> known;
  auto consider = [&](size_t x, size_t y) {
    const Contraction c = Find({x, y}, inputs, output);
    const double new_size = sizes.Of(c.result);
    if (new_size > memory_limit) return;
    const double removed = sizes.Of(inputs[x]) + sizes.Of(inputs[y]) - new_size;
    const double cost = FlopCount(c, 2, sizes);
    if (path_cost + cost > naive_cost) return;
    known.push_back({{-removed, cost}, {x, y}, c.remaining});
  };
  auto disjoint = [&](size_t x, size_t y) {
    return std::none_of(inputs[x].begin(), inputs[x].end(),
                        [&](char l) { return inputs[y].count(l) > 0; });
  };
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t x = 0; x < inputs.size(); ++x) {
    for (size_t y = x + 1; y < inputs.size(); ++y) pairs.emplace_back(x, y);
  }
  const size_t steps = inputs.size() - 1;
  for (size_t step = 0; step < steps; ++step) {
    for (const auto& [x, y] : pairs) {
      if (!disjoint(x, y)) consider(x, y);
    }
    if (known.empty()) {  // Then the outer products.
      for (size_t x = 0; x < inputs.size(); ++x) {
        for (size_t y = x + 1; y < inputs.size(); ++y) consider(x, y);
      }
      if (known.empty()) {
        std::vector<size_t> rest(inputs.size());
        for (size_t i = 0; i < rest.size(); ++i) rest[i] = i;
        path.push_back(rest);
        break;
      }
    }
    const Candidate best = *std::min_element(
        known.begin(), known.end(), [](const auto& a, const auto& b) { return a.sort < b.sort; });
    // NumPy's _update_other_results: the candidates not touching the best, renumbered.
    const auto [bx, by] = best.positions;
    std::vector<Candidate> updated;
    for (Candidate& c : known) {
      const auto [x, y] = c.positions;
      if (x == bx || x == by || y == bx || y == by) continue;
      c.inputs.erase(c.inputs.begin() + static_cast<int64_t>(by - (by > x) - (by > y)));
      c.inputs.erase(c.inputs.begin() + static_cast<int64_t>(bx - (bx > x) - (bx > y)));
      c.inputs.insert(c.inputs.end() - 1, best.inputs.back());
      c.positions = {x - (x > bx) - (x > by), y - (y > bx) - (y > by)};
      updated.push_back(std::move(c));
    }
    known = std::move(updated);
    inputs = best.inputs;
    pairs.clear();
    for (size_t i = 0; i + 1 < inputs.size(); ++i) pairs.emplace_back(i, inputs.size() - 1);
    path.push_back({bx, by});
    path_cost += best.sort.second;
  }
  return path;
}

// -- One step ---------------------------------------------------------------------------------

struct Term {
  Array array;
  std::string labels;
};

// `x` with each letter repeated in its labels reduced to its diagonal (moved last).
Term Diagonals(Term term) {
  while (Letters(term.labels.begin(), term.labels.end()).size() != term.labels.size()) {
    size_t first = 0;
    while (std::count(term.labels.begin(), term.labels.end(), term.labels[first]) == 1) ++first;
    const char letter = term.labels[first];
    const size_t second = term.labels.find(letter, first + 1);
    term.array = diagonal(term.array, 0, static_cast<int64_t>(first), static_cast<int64_t>(second));
    term.labels.erase(second, 1);
    term.labels.erase(first, 1);
    term.labels += letter;
  }
  return term;
}

// The term summed (in its own dtype, as einsum accumulates) over the letters not `needed`.
Term SumOut(Term term, const Letters& needed) {
  std::vector<int64_t> axes;
  std::string kept;
  for (size_t i = 0; i < term.labels.size(); ++i) {
    if (needed.count(term.labels[i])) {
      kept += term.labels[i];
    } else {
      axes.push_back(static_cast<int64_t>(i));
    }
  }
  if (axes.empty()) return term;
  const DType dtype = term.array.dtype();
  return {sum(term.array, {.axis = axes, .dtype = dtype}), kept};
}

// a and b contracted over their shared letters not needed later: one batched matmul
// (batch, a's free, summed) x (batch, summed, b's free), broadcasting size-1 letters.
Term Pair(const Term& a, const Term& b, const Letters& needed) {
  std::string batch, summed, a_free, b_free;
  for (char c : a.labels) {
    (Has(b.labels, c) ? (needed.count(c) ? batch : summed) : a_free) += c;
  }
  for (char c : b.labels) {
    if (!Has(a.labels, c)) b_free += c;
  }
  auto size_of = [&](char c) {
    const int64_t in_a = Has(a.labels, c) ? a.array.shape()[a.labels.find(c)] : 1;
    const int64_t in_b = Has(b.labels, c) ? b.array.shape()[b.labels.find(c)] : 1;
    return in_a == 1 ? in_b : in_a;
  };
  const std::string labels = batch + a_free + b_free;
  auto arranged = [&](const Term& t, const std::string& order,
                      const std::vector<std::string>& groups, bool spread) {
    std::vector<int64_t> axes;
    for (char c : order) {
      if (Has(t.labels, c)) axes.push_back(static_cast<int64_t>(t.labels.find(c)));
    }
    const Array moved = transpose(t.array, axes);
    if (spread) {  // Its own sizes, 1 for the other's letters: the multiply broadcasts.
      Shape shape;
      for (char c : order)
        shape.push_back(Has(t.labels, c) ? t.array.shape()[t.labels.find(c)] : 1);
      return reshape(moved, shape);
    }
    Shape full;
    for (char c : order) full.push_back(size_of(c));
    Shape grouped;
    for (const std::string& group : groups) {
      int64_t n = 1;
      for (char c : group) n *= size_of(c);
      grouped.push_back(n);
    }
    return reshape(broadcast_to(moved, full), grouped);
  };
  if (summed.empty()) {  // Nothing to contract: one broadcast multiply.
    return {arranged(a, labels, {}, true) * arranged(b, labels, {}, true), labels};
  }
  const Array left = arranged(a, batch + a_free + summed, {batch, a_free, summed}, false);
  const Array right = arranged(b, batch + summed + b_free, {batch, summed, b_free}, false);
  Shape shape;
  for (char c : labels) shape.push_back(size_of(c));
  return {reshape(matmul(left, right), shape), labels};
}

Array Contract(std::vector<Term> terms, const std::string& output) {
  for (Term& term : terms) term = Diagonals(std::move(term));
  while (terms.size() > 1) {
    Letters needed(output.begin(), output.end());
    for (size_t i = 2; i < terms.size(); ++i)
      needed.insert(terms[i].labels.begin(), terms[i].labels.end());
    Letters for_a = needed, for_b = needed;
    for_a.insert(terms[1].labels.begin(), terms[1].labels.end());
    for_b.insert(terms[0].labels.begin(), terms[0].labels.end());
    const Term a = SumOut(std::move(terms[0]), for_a);
    const Term b = SumOut(std::move(terms[1]), for_b);
    terms.erase(terms.begin(), terms.begin() + 2);
    terms.insert(terms.begin(), Pair(a, b, needed));
  }
  Term last = SumOut(std::move(terms[0]), Letters(output.begin(), output.end()));
  if (last.labels == output) return std::move(last.array);
  std::vector<int64_t> axes;
  for (char c : output) axes.push_back(static_cast<int64_t>(last.labels.find(c)));
  return transpose(last.array, axes);
}

}  // namespace

Array einsum(std::string_view subscripts,
             const std::vector<std::reference_wrapper<const Array>>& operands) {
  if (operands.empty()) ThrowInvalid("No input operands");
  std::vector<int64_t> ranks;
  for (const Array& a : operands) ranks.push_back(static_cast<int64_t>(a.shape().size()));
  auto [inputs, output] = Parse(std::string(subscripts), ranks);
  // The letters' sizes, checked (size 1 broadcasts), as einsum_path checks them.
  Sizes sizes;
  for (size_t t = 0; t < inputs.size(); ++t) {
    const Shape& shape = operands[t].get().shape();
    if (shape.size() != inputs[t].size()) {
      ThrowInvalid("Einstein sum subscript " + inputs[t] +
                   " does not contain the correct number of indices for operand " +
                   std::to_string(t) + ".");
    }
    for (size_t i = 0; i < shape.size(); ++i) {
      const char c = inputs[t][i];
      auto known = std::find_if(sizes.of.begin(), sizes.of.end(),
                                [c](const auto& e) { return e.first == c; });
      if (known == sizes.of.end()) {
        sizes.of.emplace_back(c, shape[i]);
      } else if (known->second == 1) {
        known->second = shape[i];
      } else if (shape[i] != 1 && shape[i] != known->second) {
        ThrowInvalid("Size of label '" + std::string(1, c) + "' for operand " + std::to_string(t) +
                     " (" + std::to_string(shape[i]) + ") does not match previous terms (" +
                     std::to_string(known->second) + ").");
      }
    }
  }
  std::vector<Letters> sets;
  Letters indices;
  double max_size = sizes.Of(Letters(output.begin(), output.end()));
  for (const std::string& term : inputs) {
    sets.emplace_back(term.begin(), term.end());
    indices.insert(term.begin(), term.end());
    max_size = std::max(max_size, sizes.Of(sets.back()));
  }
  const Letters output_set(output.begin(), output.end());
  std::vector<std::vector<size_t>> path;
  if (inputs.size() <= 2 || indices == output_set) {
    path.emplace_back();
    for (size_t i = 0; i < inputs.size(); ++i) path.back().push_back(i);
  } else {
    path = GreedyPath(sets, output_set, sizes, max_size);
  }
  // The operands in their common dtype, contracted step by step.
  DType common = operands.front().get().dtype();
  for (const Array& a : operands) common = detail::PromoteTypes(common, a.dtype());
  std::vector<Term> terms;
  for (size_t i = 0; i < inputs.size(); ++i)
    terms.push_back({astype(operands[i], common), inputs[i]});
  for (size_t step = 0; step < path.size(); ++step) {
    std::vector<size_t> positions = path[step];
    std::sort(positions.rbegin(), positions.rend());
    std::vector<Term> taken;
    for (size_t p : positions) {
      taken.push_back(std::move(terms[p]));
      terms.erase(terms.begin() + static_cast<int64_t>(p));
    }
    // An intermediate's letters: those later steps or the output need, by size then letter.
    std::string result = output;
    if (step + 1 < path.size()) {
      Letters kept = output_set;
      for (const Term& t : terms) kept.insert(t.labels.begin(), t.labels.end());
      std::vector<std::pair<int64_t, char>> order;
      for (const Term& t : taken) {
        for (char c : t.labels) {
          if (kept.count(c) && std::none_of(order.begin(), order.end(),
                                            [c](const auto& e) { return e.second == c; })) {
            order.emplace_back(sizes[c], c);
          }
        }
      }
      std::sort(order.begin(), order.end());
      result.clear();
      for (const auto& [size, c] : order) result += c;
    }
    terms.push_back({Contract(std::move(taken), result), result});
  }
  Array& last = terms.front().array;
  return last.dtype() == common ? std::move(last) : astype(last, common);
}

}  // namespace arrayhub::client
