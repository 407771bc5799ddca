#include "progress.h"

namespace paretune {

Progress::~Progress() = default;

void Progress::sample(int, double) {}

} // namespace paretune
