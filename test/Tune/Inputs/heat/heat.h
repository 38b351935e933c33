#ifndef HEAT_H
#define HEAT_H
#include <vector>
std::vector<float> initial_field(int n);
#endif
