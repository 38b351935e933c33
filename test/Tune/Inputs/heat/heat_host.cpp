// Host side of the heat app, in its own translation unit.
#include "heat.h"

#include <cstddef>

std::vector<float> initial_field(int n) {
  std::vector<float> f((size_t)n * n * n);
  for (size_t i = 0; i < f.size(); ++i)
    f[i] = (float)(i % 17) / 17.0f;
  return f;
}
