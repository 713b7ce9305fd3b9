#include "server/kernel/bind_params.h"

#include <fmt/format.h>

#include "server/kernel/kernel_error.h"
#include "server/kernel/lexer.h"
#include "server/kernel/limits.h"
#include "server/kernel/type_rules.h"

namespace arrayhub::kernel {
namespace {

struct Declared {
  std::string name;
  std::string type;
  bool raw = false;
  SourcePos pos;       // Of the name.
  SourcePos type_pos;  // Of the type.
};

std::vector<Declared> ParseList(std::string_view source, Part part, int64_t& budget) {
  const std::vector<Token> tokens = Tokenize(source, part, budget);
  std::vector<Declared> list;
  size_t at = 0;
  const auto expect_identifier = [&](std::string_view what) -> const Token& {
    const Token& token = tokens[at];
    if (token.kind != Token::Kind::kIdentifier) {
      Fail(token.pos,
           fmt::format("expected {}, found {}", what,
                       token.kind == Token::Kind::kEnd ? std::string("the end")
                                                       : fmt::format("'{}'", token.text)));
    }
    ++at;
    return token;
  };
  if (tokens[0].kind == Token::Kind::kEnd) return list;
  while (true) {
    Declared declared;
    if (tokens[at].kind == Token::Kind::kIdentifier && tokens[at].text == "raw") {
      declared.raw = true;
      ++at;
    }
    const Token& type = expect_identifier("a type (a dtype name or a placeholder)");
    declared.type = type.text;
    declared.type_pos = type.pos;
    if (tokens[at].kind == Token::Kind::kPunct && tokens[at].text == "*") {
      Fail(tokens[at].pos, "pointers are not supported");
    }
    const Token& name = expect_identifier("a parameter name");
    declared.name = name.text;
    declared.pos = name.pos;
    list.push_back(std::move(declared));
    const Token& next = tokens[at];
    if (next.kind == Token::Kind::kEnd) return list;
    if (next.kind != Token::Kind::kPunct || next.text != ",") {
      Fail(next.pos, fmt::format("expected ',' or the end, found '{}'", next.text));
    }
    ++at;
  }
}

void CheckName(const Declared& p) {
  if (p.name.starts_with("_") || p.name == "i") {
    Fail(p.pos, fmt::format("parameter name '{}' is reserved", p.name));
  }
  if (TypeFromWord(p.name)) Fail(p.pos, fmt::format("parameter name '{}' names a type", p.name));
  if (p.type.starts_with("_")) {
    Fail(p.type_pos, fmt::format("placeholder '{}' is reserved", p.type));
  }
  // C words that NumPy reads differently (numpy.dtype('float') is float64): only dtype names
  // are types here, so that a kernel means one thing.
  if (!DTypeFromName(p.type) && TypeFromWord(p.type)) {
    Fail(p.type_pos, fmt::format("'{}' is not a dtype name here: write a NumPy dtype name "
                                 "(int32, float32, float64, ...) or a placeholder",
                                 p.type));
  }
}

}  // namespace

BoundParameters BindParameters(std::string_view in_params, std::string_view out_params,
                               const ArgumentTypes& types, int64_t& token_budget) {
  const std::vector<Declared> ins = ParseList(in_params, Part::kInParams, token_budget);
  const std::vector<Declared> outs = ParseList(out_params, Part::kOutParams, token_budget);
  if (ins.size() + outs.size() > static_cast<size_t>(kMaxParameters)) {
    Fail(SourcePos{Part::kInParams, 1, 1}, fmt::format("more than {} parameters", kMaxParameters));
  }
  if (types.inputs.size() != ins.size()) {
    Fail(SourcePos{Part::kInParams, 1, 1},
         fmt::format("wrong number of arguments: {} input parameter{}, {} argument{} given",
                     ins.size(), ins.size() == 1 ? "" : "s", types.inputs.size(),
                     types.inputs.size() == 1 ? "" : "s"));
  }
  if (types.outputs.size() != outs.size()) {
    Fail(SourcePos{Part::kOutParams, 1, 1},
         fmt::format("wrong number of outputs: {} output parameter{}, {} given", outs.size(),
                     outs.size() == 1 ? "" : "s", types.outputs.size()));
  }
  std::vector<const Declared*> all;
  for (const Declared& p : ins) all.push_back(&p);
  for (const Declared& p : outs) all.push_back(&p);
  for (size_t k = 0; k < all.size(); ++k) {
    CheckName(*all[k]);
    for (size_t j = 0; j < k; ++j) {
      if (all[j]->name == all[k]->name) {
        Fail(all[k]->pos, fmt::format("duplicate parameter name '{}'", all[k]->name));
      }
    }
  }

  BoundParameters bound;
  bound.input_count = static_cast<int>(ins.size());
  struct Binding {
    DType dtype;
    std::string by;  // The parameter that bound it.
  };
  std::map<std::string, Binding> placeholders;
  const auto bind = [&](const Declared& p, DType dtype) {
    const auto [it, inserted] = placeholders.emplace(p.type, Binding{dtype, p.name});
    if (!inserted && it->second.dtype != dtype) {
      Fail(p.pos,
           fmt::format("type is mismatched: '{}' is {}, but {} is {} (from '{}')", p.name,
                       DTypeName(dtype), p.type, DTypeName(it->second.dtype), it->second.by));
    }
  };
  // Arrays first, then scalars, then out=.
  for (size_t k = 0; k < ins.size(); ++k) {
    const Declared& p = ins[k];
    const ArgumentTypes::Input& arg = types.inputs[k];
    if (p.raw && !arg.array) {
      Fail(p.pos, fmt::format("raw parameter '{}' needs an array, not a scalar", p.name));
    }
    if (!arg.array) continue;
    if (std::optional<DType> fixed = DTypeFromName(p.type)) {
      if (!CanCastSafely(arg.dtype, *fixed)) {
        Fail(p.pos, fmt::format("type is mismatched: '{}' is {}, which does not cast safely to "
                                "{}",
                                p.name, DTypeName(arg.dtype), DTypeName(*fixed)));
      }
    } else {
      bind(p, arg.dtype);
    }
  }
  for (size_t k = 0; k < ins.size(); ++k) {
    const Declared& p = ins[k];
    if (!types.inputs[k].array && !DTypeFromName(p.type)) {
      placeholders.emplace(p.type, Binding{types.inputs[k].dtype, p.name});
    }
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    const Declared& p = outs[k];
    if (!types.outputs[k]) continue;
    if (std::optional<DType> fixed = DTypeFromName(p.type)) {
      if (*fixed != *types.outputs[k]) {
        Fail(p.pos, fmt::format("type is mismatched: out= for '{}' is {}, not {}", p.name,
                                DTypeName(*types.outputs[k]), DTypeName(*fixed)));
      }
    } else {
      bind(p, *types.outputs[k]);
    }
  }

  for (size_t k = 0; k < all.size(); ++k) {
    const Declared& p = *all[k];
    const bool output = k >= ins.size();
    Parameter parameter;
    parameter.name = p.name;
    parameter.declared_type = p.type;
    parameter.raw = p.raw;
    parameter.output = output;
    parameter.scalar = !output && !types.inputs[k].array;
    if (std::optional<DType> fixed = DTypeFromName(p.type)) {
      parameter.dtype = *fixed;
    } else if (const auto it = placeholders.find(p.type); it != placeholders.end()) {
      parameter.dtype = it->second.dtype;
    } else {
      Fail(p.type_pos, fmt::format("cannot determine the type of output '{}': no argument "
                                   "binds {}; pass out=",
                                   p.name, p.type));
    }
    bound.parameters.push_back(std::move(parameter));
  }
  for (const auto& [name, binding] : placeholders) bound.placeholders.emplace(name, binding.dtype);
  return bound;
}

}  // namespace arrayhub::kernel
