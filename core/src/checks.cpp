// Shape and value checks shared by every entry point, so each error message names what was wrong.
#include <cmath>
#include <sstream>

#include "attention/attention.hpp"

namespace attn {

std::string shape_of(const Matrix& m) {
  std::ostringstream s;
  s << m.rows() << "×" << m.cols();
  return s.str();
}

static std::string describe(float value) {
  if (std::isnan(value)) return "NaN";
  return value > 0 ? "+Inf" : "-Inf";
}

void require_finite(const Matrix& m, const char* name) {
  for (Index r = 0; r < m.rows(); ++r)
    for (Index c = 0; c < m.cols(); ++c)
      if (!std::isfinite(m(r, c))) {
        std::ostringstream s;
        s << name << " (" << shape_of(m) << ") has " << describe(m(r, c)) << " at row " << r
          << ", column " << c << "; every value must be a finite number";
        throw AttentionError(s.str());
      }
}

void require_finite(const Vector& v, const char* name) {
  for (Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v(i))) {
      std::ostringstream s;
      s << name << " (length " << v.size() << ") has " << describe(v(i)) << " at index " << i
        << "; every value must be a finite number";
      throw AttentionError(s.str());
    }
}

}  // namespace attn
