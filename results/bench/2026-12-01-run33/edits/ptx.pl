# Run 33 trial edit: masked stores as predicated PTX stores (no branch).
# $clob: 1 = "memory" clobber (default), 0 = none.
our $clob; $clob = 1 unless defined $clob;
my $cl = $clob ? ' : "memory"' : '';
my $h = <<"H";
namespace {
__device__ __forceinline__ void fs_pst(float4 *a, float4 v, bool p) {
  asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0; \@q st.global.v4.f32 [%1], {%2, %3, %4, %5}; }" :: "r"((int)p), "l"(a), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)$cl);
}
__device__ __forceinline__ void fs_pst(float2 *a, float2 v, bool p) {
  asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0; \@q st.global.v2.f32 [%1], {%2, %3}; }" :: "r"((int)p), "l"(a), "f"(v.x), "f"(v.y)$cl);
}
__device__ __forceinline__ void fs_pst(double2 *a, double2 v, bool p) {
  asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0; \@q st.global.v2.f64 [%1], {%2, %3}; }" :: "r"((int)p), "l"(a), "d"(v.x), "d"(v.y)$cl);
}
__device__ __forceinline__ void fs_pst(float *a, float v, bool p) {
  asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0; \@q st.global.f32 [%1], %2; }" :: "r"((int)p), "l"(a), "f"(v)$cl);
}
__device__ __forceinline__ void fs_pst(double *a, double v, bool p) {
  asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0; \@q st.global.f64 [%1], %2; }" :: "r"((int)p), "l"(a), "d"(v)$cl);
}
}
H
s/\n(static __constant__|namespace \{\ntemplate)/\n$h$1/;
s/if \(fs_xwhole\)\n(\s*)\*\((\w+) \*\)\((.*?)\) = (make_\w+\(.*?\));\n/$1fs_pst(($2 *)($3), $4, fs_xwhole);\n/g;
s/if \(fs_xwhole\)\n(\s*)__stcs\(\((\w+) \*\)\((.*?)\), (make_\w+\(.*?\))\);\n/$1fs_pst(($2 *)($3), $4, fs_xwhole);\n/g;
s/(\s*)if \((fs_m\d)\)\n\s*(\w+)\[(.*?)\] = (.*?);\n/$1fs_pst(&$3\[$4\], $5, $2);\n/g;
