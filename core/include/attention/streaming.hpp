/// \file
/// Output-only attention for long sequences: softmax(score(Q, K) / temperature)·V computed with the
/// online ("streaming") softmax, block by block, so the T×T weight matrix is never formed. Scratch is
/// O(block · (block + d_v)) per query block instead of O(T²): T = 4096 needs kilobytes, not 64 MB.
#pragma once

#include "attention/attention.hpp"

namespace attn {

/// Same result as attention(...).output for Dot, ScaledDot and Cosine scores with temperature, causal
/// and key-padding masks (a query with every key masked gets a zero row). Row convention: Q, K are
/// T_q×d_k and T_k×d_k, V is T_k×d_v; returns T_q×d_v. Additive scores and the hand shortcuts are not
/// supported here (they exist to be looked at, which needs the full matrix).
Matrix streaming_attention_output(const Matrix& Q, const Matrix& K, const Matrix& V,
                                  const AttentionOptions& options = {});

}  // namespace attn
