# lane stores at immediate offsets from the group's address (s0 == 1 on the vector path)
s/&(\w+)\[([^\]\n]*?) \+ (\d) \* s0\]/&$1\[$2\] + $3/g;
