"""The CUDA source of one emulated unit, read and rewritten as host C++.

utils/cpu-emulate.py's reading of the units it compiles: comments and
strings blanked so that braces and parentheses can be matched; the
__global__ and __device__ functions and which of them reach a barrier (run
as fibers) or a warp-level operation (not emulated); every <<< >>> launch,
rewritten as a call of the shim's launcher; inline PTX (asm statements),
rewritten as the C++ it stands for; and `extern __shared__` arrays, which
become the shim's per-block dynamic shared memory. Python 3 standard
library only.
"""
import re

# Warp-level operations need the 32 threads of a warp in lockstep; of
# cooperative groups, only the thread block is emulated (its sync() is the
# block's barrier), not tiles of it, nor the grid across blocks.
WARP_SYNCHRONOUS = re.compile(
    r"\b(__shfl\w*|__syncwarp|__ballot\w*|__any_sync|__all_sync|"
    r"__activemask|__match_\w+|__reduce_\w+_sync|tiled_partition|"
    r"thread_block_tile|coalesced_threads|coalesced_group|this_grid|"
    r"grid_group|this_multi_grid|multi_grid_group|cluster_group)\b")
# A function that names the thread block may sync it: run it as fibers.
BARRIER = re.compile(
    r"\b(__syncthreads(_count|_and|_or)?|this_thread_block|thread_block)\b")


class EmulationError(Exception):
    """The emulation could not be prepared, built or run."""


# --- Reading CUDA source ----------------------------------------------------

def blank_comments_and_strings(text):
    """The text with comments and string/char literals turned to spaces.

    Offsets and newlines are kept, so what is found in the result can be cut
    from the original text.
    """
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            # Keep the quotes: a blanked literal is still one token.
            for k in range(i + 1, j - 1):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def matching(text, i, open_ch, close_ch):
    """Index just past the bracket that closes the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_ch:
            depth += 1
        elif text[j] == close_ch:
            depth -= 1
            if depth == 0:
                return j + 1
    raise EmulationError("unbalanced '%s' at offset %d" % (open_ch, i))


def split_outside(text, sep):
    """Splits at the separator characters outside any bracket or string."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return parts


def split_top_level(text):
    """Splits at the commas outside any bracket or string."""
    return [p.strip() for p in split_outside(text, ",")]


class Function:
    """A __global__ or __device__ function defined in a unit."""

    def __init__(self, name, body, max_threads):
        self.name = name
        self.body = body
        self.max_threads = max_threads


def find_functions(clean, qualifier):
    """The functions defined with qualifier (`__global__`, `__device__`)."""
    found = []
    for m in re.finditer(r"\b%s\b" % qualifier, clean):
        i, max_threads = m.end(), 0
        while True:
            paren = clean.find("(", i)
            stop = re.compile(r"[;={]").search(clean, i)
            if paren < 0 or (stop and stop.start() < paren):
                paren = -1  # a variable, not a function
                break
            name = re.search(r"(\w+)\s*$", clean[i:paren])
            if not name:
                paren = -1
                break
            if name.group(1) == "__launch_bounds__":
                close = matching(clean, paren, "(", ")")
                first = split_top_level(clean[paren + 1:close - 1])[0]
                if re.fullmatch(r"\d+", first):
                    max_threads = int(first)
                i = close
                continue
            break
        if paren < 0:
            continue
        close = matching(clean, paren, "(", ")")
        body_start = re.compile(r"\s*").match(clean, close).end()
        if body_start >= len(clean) or clean[body_start] != "{":
            continue  # a declaration
        body_end = matching(clean, body_start, "{", "}")
        found.append(Function(name.group(1), clean[body_start:body_end],
                              max_threads))
    return found


def barrier_functions(functions):
    """Names of the functions that reach __syncthreads, directly or not."""
    names = {f.name for f in functions if BARRIER.search(f.body)}
    while True:
        more = {f.name for f in functions if f.name not in names and any(
            re.search(r"\b%s\s*[<(]" % re.escape(n), f.body) for n in names)}
        if not more:
            return names
        names |= more


class Launch:
    """One `kernel<<<...>>>(...)` in a unit: where it is and its parts."""

    def __init__(self, start, end, kernel, config, args):
        self.start, self.end = start, end
        self.kernel, self.config, self.args = kernel, config, args

    def base_name(self):
        return re.sub(r"<.*", "", self.kernel).split("::")[-1].strip()


def find_launches(text, clean):
    launches = []
    for m in re.finditer(r"<<<", clean):
        # The configuration runs to the first '>>>' outside brackets.
        depth, i = 0, m.end()
        while i < len(clean):
            if clean[i] in "([{":
                depth += 1
            elif clean[i] in ")]}":
                depth -= 1
            elif depth == 0 and clean.startswith(">>>", i):
                break
            i += 1
        else:
            raise EmulationError("a launch without '>>>' at offset %d"
                                 % m.start())
        config = split_top_level(text[m.end():i])
        paren = re.compile(r"\s*").match(clean, i + 3).end()
        if clean[paren:paren + 1] != "(":
            raise EmulationError("a launch without arguments at offset %d"
                                 % m.start())
        end = matching(clean, paren, "(", ")")
        # The kernel: an identifier, maybe qualified, maybe with template
        # arguments, right before '<<<'.
        j = m.start()
        while j > 0 and clean[j - 1].isspace():
            j -= 1
        if clean[j - 1] == ">":
            depth = 0
            while j > 0:
                j -= 1
                if clean[j] == ">":
                    depth += 1
                elif clean[j] == "<":
                    depth -= 1
                    if depth == 0:
                        break
        while j > 0 and (clean[j - 1].isalnum() or clean[j - 1] in "_:"):
            j -= 1
        kernel = text[j:m.start()].strip()
        if not kernel or not 1 <= len(config) <= 4:
            raise EmulationError("cannot read the launch at offset %d"
                                 % m.start())
        launches.append(Launch(j, end, kernel, config,
                               text[paren + 1:end - 1]))
    return launches


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def launch_call(launch, unit, barrier_kernels, max_threads):
    """The fs_emu::launch call that stands for launch."""
    config = launch.config + ["0", "0"][len(launch.config) - 2:]
    base = launch.base_name()
    info = "FsEmuKernel{%s, %s, %s, %du, (const void *)&%s}" % (
        c_string(launch.kernel), c_string(unit),
        "true" if base in barrier_kernels else "false",
        max_threads.get(base, 0), launch.kernel)
    # Each argument is evaluated once, here, into a capture of its own.
    args = split_top_level(launch.args) if launch.args.strip() else []
    captures = ", ".join("fs_emu_a%d = (%s)" % (i, a)
                         for i, a in enumerate(args))
    names = ", ".join("fs_emu_a%d" % i for i in range(len(args)))
    return ("::fs_emu::launch(%s, dim3(%s), dim3(%s), (size_t)(%s), "
            "(cudaStream_t)(%s), [%s] { %s(%s); })"
            % (info, config[0], config[1], config[2], config[3], captures,
               launch.kernel, names))


# --- Inline PTX -------------------------------------------------------------

ASM = re.compile(r"\b(?:asm|__asm__)\s*(?:volatile\s*|__volatile__\s*)?\(")
PTX_TYPES = {"f32": "float", "f64": "double", "s8": "signed char",
             "u8": "unsigned char", "b8": "unsigned char", "s16": "short",
             "u16": "unsigned short", "b16": "unsigned short", "s32": "int",
             "u32": "unsigned", "b32": "unsigned", "s64": "long long",
             "u64": "unsigned long long", "b64": "unsigned long long"}
PTX_OPERAND = re.compile(r"%(\d+)")
PTX_ADDRESS = re.compile(r"\[\s*%(\d+)\s*(?:\+\s*(-?\d+)\s*)?\]")


def split_asm(text):
    """Template, outputs and inputs of the inside of an asm statement: the
    sections between the colons outside strings and brackets."""
    sections = split_outside(text, ":")
    template = "".join(m.group(1) for m in re.finditer(
        r'"((?:[^"\\]|\\.)*)"', sections[0]))
    template = template.replace("\\n", "\n").replace("\\t", " ")
    operands = []
    for section in sections[1:3]:
        for op in split_top_level(section) if section.strip() else []:
            m = re.fullmatch(r'\s*"([^"]*)"\s*\((.*)\)\s*', op, re.S)
            if not m:
                raise EmulationError("cannot read the asm operand '%s'" % op)
            operands.append(m.group(2).strip())
    return template.strip(), operands


def ptx_statement(template, operands):
    """Host C++ for one PTX load, store or prefetch of global memory, or
    None when the emulation cannot run the instruction."""
    m = re.fullmatch(r"(ld|st|prefetch)((?:\.[\w:]+)*)\s+(.*?)\s*;?",
                     template, re.S)
    if not m:
        return None
    op, mods, rest = m.group(1), m.group(2).split(".")[1:], m.group(3)
    if any(s in mods for s in ("shared", "local", "param", "const")):
        return None
    address = PTX_ADDRESS.search(rest)
    if not address:
        return None
    base = operands[int(address.group(1))]
    offset = int(address.group(2) or 0)
    if op == "prefetch":
        # A cache hint: it changes no value.
        return "(void)(%s)" % base
    if mods[-1] not in PTX_TYPES:
        return None
    ctype = PTX_TYPES[mods[-1]]
    lanes = 4 if "v4" in mods else 2 if "v2" in mods else 1
    values = PTX_ADDRESS.sub("", rest).replace("{", "").replace("}", "")
    values = [v.strip() for v in values.split(",") if v.strip()]
    if len(values) != lanes or not all(PTX_OPERAND.fullmatch(v)
                                       for v in values):
        return None
    exprs = [operands[int(v[1:])] for v in values]
    text = c_string(template)
    head = ("do { %s *fs_emu_p = ::fs_emu::ptxAddress<%s>((const void *)(%s), "
            "%d, %d, %s); " % (ctype, ctype, base, offset, lanes, text))
    if op == "ld":
        body = " ".join("%s = fs_emu_p[%d];" % (e, i)
                        for i, e in enumerate(exprs))
    else:
        body = " ".join("fs_emu_p[%d] = (%s)(%s);" % (i, ctype, e)
                        for i, e in enumerate(exprs))
    return head + body + " } while (0)"


def rewrite_asm(text, clean, unit):
    """Replaces every asm statement with the host code that does the same.
    Only single loads, stores and prefetches of global memory can be
    emulated; anything else is refused with the instruction."""
    out, last = [], 0
    for m in ASM.finditer(clean):
        open_paren = m.end() - 1
        end = matching(clean, open_paren, "(", ")")
        template, operands = split_asm(text[open_paren + 1:end - 1])
        try:
            statement = ptx_statement(template, operands)
        except (IndexError, ValueError):
            statement = None
        if statement is None:
            raise EmulationError("%s: cannot emulate the inline PTX '%s'"
                                 % (unit, template))
        out.append(text[last:m.start()])
        out.append(statement + "\n" * text.count("\n", m.start(), end))
        last = end
    out.append(text[last:])
    return "".join(out)


DYNAMIC_SHARED = re.compile(
    r"extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s*)?"
    r"([\w\s:]+?)\s*(\w+)\s*\[\s*\]\s*;")


class Unit:
    """One source file of the bench and what the emulation makes of it."""

    def __init__(self, name, text):
        self.name = name
        self.text = text
        self.clean = blank_comments_and_strings(text)
        self.kernels = find_functions(self.clean, "__global__")
        self.device_functions = find_functions(self.clean, "__device__")
        launcher = re.search(r"^void (fs_cand_\d+|fs_tune_candidate)\(",
                             self.clean, re.M)
        self.launcher = launcher.group(1) if launcher else None

    def warp_synchronous(self):
        m = WARP_SYNCHRONOUS.search(self.clean)
        return m.group(1) if m else None

    def rewrite(self, barrier_kernels, max_threads):
        """The unit as host C++: launches replaced, newlines kept."""
        out, last = [], 0
        for launch in find_launches(self.text, self.clean):
            out.append(self.text[last:launch.start])
            call = launch_call(launch, self.name, barrier_kernels, max_threads)
            # The same number of lines, so diagnostics point at the source.
            out.append(call + "\n" * self.text.count(
                "\n", launch.start, launch.end))
            last = launch.end
        out.append(self.text[last:])
        body = "".join(out)
        body = rewrite_asm(body, blank_comments_and_strings(body), self.name)
        body = DYNAMIC_SHARED.sub(
            lambda m: "%s *const %s = reinterpret_cast<%s *>("
            "::fs_emu::dynamicShared());" % (m.group(1).strip(), m.group(2),
                                              m.group(1).strip()), body)
        return body
