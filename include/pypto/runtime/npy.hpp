// pypto/runtime/npy.hpp — NumPy's .npy array files as runtime Values: how a run takes a
// parameter's elements from a file and writes its results, so a program runs on the inputs a
// host's test builds and its outputs compare with a NumPy or torch computation.
//
// The element encodings (docs/runtime.md#array-files): each integer dtype is the NumPy integer
// of its width and signedness (INDEX is int64), BOOL is bool, FP32 float32, FP16 float16; BF16,
// which NumPy lacks, is written as the float32 values it denotes and read from float32 values
// that are exactly BF16 (or from uint16 bit patterns). FP16 reads float32 the same way. Reading
// is exact or a RuntimeError naming the file, what is wrong and where (a bad header key, a
// big-endian or Fortran-order array, a count of bytes that is not the shape's).
#pragma once

#include <string>
#include <string_view>

#include "pypto/core/config.hpp"
#include "pypto/core/dtype.hpp"
#include "pypto/runtime/interpreter.hpp"

namespace pypto::runtime {

/// The .npy file (format 1.0) holding `v`: a tensor or tile as its shape, a scalar as a 0-d
/// array. RuntimeError for a dtype NumPy cannot hold exactly (the 4- and 8-bit floats, INT4).
PYPTO_DECL std::string write_npy(const Value& v);

/// The value of dtype `dtype` that the .npy `bytes` hold (format 1.0, 2.0 or 3.0): a 0-d array is
/// a scalar, any other a tensor (a tile when `tile`). `file` names the source in errors.
PYPTO_DECL Value read_npy(std::string_view bytes, core::DataType dtype, bool tile,
                          const std::string& file);

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/npy.ipp"
#endif
