# the vector kernel's contiguous stride as the constant 1 (its launcher requires it)
s/(fs_cand_\d+_kernel\([^\n]*?)Idx s0, ([^\n]*\) \{\n)/$1Idx, $2  const Idx s0 = 1;\n/;
