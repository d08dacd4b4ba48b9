/*
 * clrlayouts.c - built-in layouts of the .NET runtime's manifest-based
 * providers. Placeholder: filled below.
 */
#include "decode/kmacros.h"

const struct etl_pprovider etl_pproviders[] = {
    { { 0 }, NULL, NULL, 0 },
};
const size_t etl_npproviders = 0;
