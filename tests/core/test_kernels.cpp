// The vectorised kernels (core/src/kernels.hpp) against their plain versions (core/src/reference.hpp and
// Eigen's products): the same numbers to float rounding, at sizes that straddle the vector width, the
// register tiles and the 64-wide streaming tiles, with masks.
#include <cmath>
#include <limits>

#include "helpers.hpp"
#include "kernels.hpp"
#include "reference.hpp"

using namespace attn;

namespace {

const float kInf = std::numeric_limits<float>::infinity();

// |a - b| ≤ tolerance · scale(i, j) for every entry, where scale is what the entry's rounding error
// grows with (Σ|a_ik·b_jk| for a product).
void require_within(const Matrix& actual, const Matrix& expected, const Matrix& scale, float tolerance) {
  REQUIRE(actual.rows() == expected.rows());
  REQUIRE(actual.cols() == expected.cols());
  for (Index r = 0; r < actual.rows(); ++r)
    for (Index c = 0; c < actual.cols(); ++c) {
      INFO("at (" << r << ", " << c << "): " << actual(r, c) << " vs " << expected(r, c));
      REQUIRE(std::abs(actual(r, c) - expected(r, c)) <= tolerance * scale(r, c));
    }
}

}  // namespace

TEST_CASE("kernels: Q·Kᵀ is correctly rounded, weights·V equals Eigen's product", "[kernels]") {
  std::mt19937 rng(3);
  for (Index m : {1, 2, 5, 6, 7, 13}) {
    for (Index n : {1, 3, 4, 8, 9, 17, 33}) {
      for (Index k : {1, 4, 7, 64}) {
        INFO("m = " << m << ", n = " << n << ", k = " << k);
        const Matrix A = seeded_matrix(m, k, rng), B = seeded_matrix(n, k, rng), C = seeded_matrix(k, n, rng);
        const float eps = std::numeric_limits<float>::epsilon();
        // Q·Kᵀ·scale is summed in double and rounded once: within half an ulp (ε/2 relative) of the exact
        // value, up to the double sum's own k·2⁻⁵³·Σ|a·b| (and the double product here has as much again).
        const double scale = 1 / std::sqrt(7.0);
        const Eigen::MatrixXd exact = A.cast<double>() * B.cast<double>().transpose() * scale;
        const Eigen::MatrixXd magnitude = A.cast<double>().cwiseAbs() * B.cast<double>().cwiseAbs().transpose() * scale;
        const Matrix scores = kernels::multiply_transposed(A, B, scale);
        for (Index i = 0; i < m; ++i)
          for (Index j = 0; j < n; ++j) {
            INFO("(" << i << ", " << j << "): " << scores(i, j) << " vs " << exact(i, j));
            REQUIRE(std::abs(scores(i, j) - exact(i, j)) <=
                    eps / 2 * std::abs(exact(i, j)) + 2 * k * std::ldexp(1.0, -53) * magnitude(i, j));
          }
        // weights·V sums in float: each entry's rounding error is at most k·ε·Σ|a·b|.
        require_within(kernels::multiply(A, C), A * C, A.cwiseAbs() * C.cwiseAbs(), (k + 1) * eps);
      }
    }
  }
}

TEST_CASE("kernels: the row softmax equals the plain one, masks and a frozen temperature included",
          "[kernels][softmax]") {
  std::mt19937 rng(5);
  for (Index cols : {1, 3, 4, 7, 8, 9, 31, 64, 65, 300}) {
    for (float inv_t : {1.0f, 0.25f, 4.0f, kInf}) {
      Matrix logits = seeded_matrix(6, cols, rng, 3.0f);
      for (Index j = 0; j < cols; j += 3) logits(1, j) = -kInf;  // masked keys
      logits.row(2).setConstant(-kInf);                          // every key masked
      Matrix fast = logits, plain = logits;
      kernels::softmax_rows(fast.data(), fast.rows(), fast.cols(), fast.cols(), inv_t);
      reference::softmax_rows(plain, inv_t);
      INFO("cols = " << cols << ", 1/T = " << inv_t);
      // The kernel's exp is within 2 ulp of std::exp and it sums in float: weights agree to a few ε.
      require_close(fast, plain, 8 * std::numeric_limits<float>::epsilon());
      REQUIRE(fast.row(2).isZero(0));
    }
  }
}

TEST_CASE("kernels: the streaming output equals the plain online softmax across tile edges and masks",
          "[kernels][streaming]") {
  std::mt19937 rng(9);
  for (Index T : {1, 5, 63, 64, 65, 130, 200}) {
    for (Index d_v : {1, 5, 8}) {
      const Index d_k = 7;
      const Matrix Q = seeded_matrix(T, d_k, rng, 1.5f), K = seeded_matrix(T, d_k, rng, 1.5f),
                   V = seeded_matrix(T, d_v, rng);
      KeyPadding padding(static_cast<std::size_t>(T), 0);
      for (Index j = 0; j < T; ++j)
        padding[static_cast<std::size_t>(j)] = T > 1 && (j % 3 == 1 || (j >= 64 && j < 128));
      for (bool causal : {false, true})
        for (bool padded : {false, true}) {
          const KeyPadding& mask = padded ? padding : KeyPadding{};
          Matrix fast(T, d_v);
          kernels::streaming_output(Q.data(), K.data(), V.data(), T, T, d_k, d_v, 0.4f, causal,
                                    padded ? mask.data() : nullptr, fast.data());
          INFO("T = " << T << ", d_v = " << d_v << ", causal " << causal << ", padded " << padded);
          require_close(fast, reference::streaming_output(Q, K, V, 0.4f, causal, mask), 2e-6f);
        }
    }
  }
}

// The streaming kernel sizes its scratch to the call (queries of one block, rounded up to a panel, are the
// weight tile's row stride; only the key groups that hold keys are packed) and does not zero it: a stride
// or size mistake shows up at a block of 1, 2, 63, 64 or 65 queries against few or many keys. T_q ≠ T_k
// here (the test above is square); the output starts as NaN so a row left unwritten fails too. ASan and
// valgrind (scripts/test.sh) run this case as well: they see a read past a buffer or of unwritten scratch.
TEST_CASE("kernels: the streaming output is right for every block of queries against few or many keys",
          "[kernels][streaming]") {
  std::mt19937 rng(21);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Index T_q : {1, 2, 63, 64, 65}) {
    for (Index T_k : {1, 2, 5, 63, 64, 65, 200}) {
      for (Index d_k : {3, 16}) {
        const Index d_v = d_k == 3 ? 17 : 5;  // wider and narrower than one panel of V
        const Matrix Q = seeded_matrix(T_q, d_k, rng, 1.5f), K = seeded_matrix(T_k, d_k, rng, 1.5f),
                     V = seeded_matrix(T_k, d_v, rng);
        KeyPadding padding(static_cast<std::size_t>(T_k), 0);
        for (Index j = 0; j < T_k; ++j) padding[static_cast<std::size_t>(j)] = T_k > 1 && j % 4 == 2;
        for (bool causal : {false, true}) {
          if (causal && T_q != T_k) continue;  // a causal mask needs one query per key
          for (bool padded : {false, true}) {
            const KeyPadding& mask = padded ? padding : KeyPadding{};
            Matrix fast = Matrix::Constant(T_q, d_v, nan);
            kernels::streaming_output(Q.data(), K.data(), V.data(), T_q, T_k, d_k, d_v, 0.4f, causal,
                                      padded ? mask.data() : nullptr, fast.data());
            INFO("T_q = " << T_q << ", T_k = " << T_k << ", d_k = " << d_k << ", causal " << causal << ", padded "
                          << padded);
            require_close(fast, reference::streaming_output(Q, K, V, 0.4f, causal, mask), 2e-6f);
          }
        }
      }
    }
  }
}
