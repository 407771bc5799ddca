// SPDX-License-Identifier: GPL-3.0-or-later
#include "progress.h"

namespace paretune {

Progress::~Progress() = default;

void Progress::sample(int, double) {}

} // namespace paretune
