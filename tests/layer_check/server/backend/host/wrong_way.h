// A backend that reaches up into core: the layer check must refuse it (tests/CMakeLists.txt).
#pragma once

#include "server/core/engine.h"
