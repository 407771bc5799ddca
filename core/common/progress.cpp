#include "progress.h"

namespace paretune {

Progress::~Progress() = default;

} // namespace paretune
