#include "floe/sink/memory_budget.h"

// MemoryBudget is header-only; this file keeps the module's one-.cc-per-.h layout.
