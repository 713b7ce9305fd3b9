// The whole C++ client: Client (client.h), Batch (batch.h), NumPy's functions (functions.h,
// ufuncs.h), the functions composed from them (statistics.h, ...) and Python's operators on
// arrays (operators.h).
#pragma once

#include "arrayhub/batch.h"
#include "arrayhub/client.h"
#include "arrayhub/fft.h"
#include "arrayhub/functions.h"
#include "arrayhub/histograms.h"
#include "arrayhub/operators.h"
#include "arrayhub/sets.h"
#include "arrayhub/signal.h"
#include "arrayhub/sorting.h"
#include "arrayhub/statistics.h"
#include "arrayhub/ufuncs.h"
