// The most a user kernel may be, so that checking one and running one are bounded work. Each
// is checked as the structure grows (a token, a node, a nesting level at a time), never after
// it has been built.
#pragma once

#include <cstdint>

namespace arrayhub::kernel {

inline constexpr int64_t kMaxSourceBytes = 64 * 1024;  // All parts together.
inline constexpr int64_t kMaxTokens = 16 * 1024;       // All parts together.
inline constexpr int64_t kMaxNodes = 16 * 1024;        // Expressions and statements, all parts.
// Every function call inlined (as NVRTC does): nodes of a part plus its callees', recursively.
inline constexpr int64_t kMaxInlinedNodes = 256 * 1024;
// Nested expressions and statements; each operator of a chain (a + b + c) counts as a level.
inline constexpr int kMaxDepth = 128;
inline constexpr int kMaxLocals = 256;          // Per part or function, parameters included.
inline constexpr int kMaxFunctions = 64;        // Preamble functions.
inline constexpr int kMaxLoopNesting = 8;       // for inside for.
inline constexpr int kMaxParameters = 64;       // in_params and out_params together.
inline constexpr int kMaxIdentifierBytes = 64;  // A name.

}  // namespace arrayhub::kernel
