/* rewrite.c - turns the two pieces of CUDA syntax that C++ lacks into plain C++ for the emulator.
 *
 * Part of the CPU emulation backend (common/emu/). emucc builds it on first use and runs
 *     emu-rewrite INPUT.cu OUTPUT.cpp NAME_FOR_ERRORS
 * before handing the result to the host C++ compiler. Everything else CUDA adds (__global__,
 * __shared__, threadIdx, __syncthreads, ...) is handled by macros and functions in
 * common/emu/include/, so only these rewrites are needed:
 *
 *   1. Kernel launches. `name<<<grid, block[, shared_bytes[, stream]]>>>(args)` becomes
 *        ::cuda_emu::launch(::cuda_emu::config(grid, block...), "name",
 *                           [=](auto&&... cuda_emu_args) { name(cuda_emu_args...); }, args)
 *      The kernel name may be templated (reduce<float, 256>) or qualified (ns::kernel), and the
 *      configuration may span lines. The lambda captures by value: a launch captured into a CUDA
 *      graph keeps it, and so whatever it names (a kernel pointer in a local variable), after
 *      the launching function has returned.
 *   2. `extern __shared__ T name[];` (dynamic shared memory, sized at launch; `extern T __shared__
 *      name[]` too) becomes a pointer to the running block's buffer:
 *      `T *const name = (decltype(+name))...;`; with more dimensions (`T name[][N]`), a pointer
 *      to rows of N.
 *   3. The keyword `__noinline__` becomes `__attribute__((noinline))`. It cannot be a macro:
 *      the C++ standard library writes __attribute__((__noinline__)), which the macro would break.
 *   4. After each kernel (__global__ function, not a template) declared or defined at namespace
 *      scope, on the same line:
 *        [[maybe_unused]] static const bool CUDA_EMU_NOTED_KERNEL(__COUNTER__) =
 *            ::cuda_emu::note_kernel_at_startup<void(PARAMETERS)>(name, "name");
 *      which tells the runtime the kernel's parameter types when the program starts, so that a
 *      kernel reached only as (void*)kernel (cudaGraphAddKernelNode, cudaLaunchKernel) can be
 *      called with its arguments, and its name, which the reports of a launch through a pointer
 *      give. The parameter list is written out, so overloads are told apart.
 *   5. With --sanitize (emucc --sanitize passes it as a fifth argument): around each static
 *      `__shared__` declaration inside a function, small unused gaps, and calls that tell the
 *      checks where each variable and gap lies, so that an access running past a __shared__
 *      array into a gap is told from one inside it. (Registration is a call, not a
 *      thread_local object: such objects bring guard variables that would sit between the
 *      array and its gap.)
 *   6. With --profile (emucc --profile): the static __shared__ variables are registered as in 5,
 *      and in the bodies of __global__ and __device__ functions the condition of each if and
 *      while, `if (c)`, becomes `if (::cuda_emu::profile_branch(c))`, which notes which way each
 *      thread went, for the count of divergent branches (runtime/profile.cpp).
 *   7. In the body of a kernel noted as in 4, after each static `__shared__` declaration:
 *        (void)::cuda_emu::StaticShared<static_cast<void (*)(PARAMETERS)>(&name), sizeof(var),
 *                                       __COUNTER__>::noted;
 *      whose initializer runs when the program starts and adds the variable's size to the
 *      kernel's, so that cudaFuncGetAttributes and the occupancy API count a kernel's static
 *      shared memory before it has ever run, as a GPU's compiler does. In a template kernel at
 *      namespace scope (not noted as in 4) the same, with `&name<PARAMETER NAMES>`: each instance
 *      the program uses notes its own sizes. A __device__ function at namespace scope (not
 *      constexpr) notes its variables' sizes under a number made from its name,
 *        (void)::cuda_emu::FunctionShared<NAME KEY, VARIABLE KEY, sizeof(var)>::noted;
 *      and the body of each kernel and __device__ function starts with a note of each function it
 *      calls by name, (void)::cuda_emu::KernelCalls<&kernel, NAME KEY>::noted; (FunctionCalls
 *      from a function): the runtime adds up what a kernel reaches, as a GPU's compiler does.
 *   8. `__shared__ alignas(N) T x;` becomes `alignas(N) __shared__ T x;`: __shared__ stands for
 *      a storage class, after which C++ allows no alignas.
 *
 * Comments, string literals, character literals and numbers (1'000'000) are copied untouched.
 * Line numbers are kept exactly: the output starts with `#line 1 "NAME_FOR_ERRORS"`, and every
 * newline of the input appears in the output on the same line, so compiler messages point into
 * the .cu file. Written in C, not a scripting language, so it needs nothing beyond a C compiler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- A growable output buffer ---------------------------------------------------------------- */
static char *out;
static size_t out_len, out_cap;

static void emit(const char *text, size_t n) {
    if (out_len + n + 1 > out_cap) {
        out_cap = (out_len + n + 1) * 2;
        out = realloc(out, out_cap);
        if (!out) { perror("emu-rewrite"); exit(2); }
    }
    memcpy(out + out_len, text, n);
    out_len += n;
}
static void emit_str(const char *text) { emit(text, strlen(text)); }

/* ---- The input ------------------------------------------------------------------------------- */
static const char *src;
static size_t src_len;
static const char *input_name;

static int is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

static int line_of(size_t pos) {
    int line = 1;
    for (size_t i = 0; i < pos && i < src_len; i++) line += src[i] == '\n';
    return line;
}
static void fail(size_t pos, const char *message) {
    fprintf(stderr, "%s:%d: error: %s\n", input_name, line_of(pos), message);
    exit(1);
}

/* If a comment, string, character literal or number starts at pos, returns where it ends;
 * otherwise returns pos. These are the tokens inside which `<<<` or `extern` mean nothing. */
static size_t skip_literal(size_t pos) {
    char c = src[pos], next = pos + 1 < src_len ? src[pos + 1] : 0;
    size_t i = pos;
    if (c == '/' && next == '/') {
        while (i < src_len && src[i] != '\n') i++;
        return i;
    }
    if (c == '/' && next == '*') {
        const char *end = strstr(src + pos + 2, "*/");
        return end ? (size_t)(end - src) + 2 : src_len;
    }
    if (c == 'R' && next == '"' && (pos == 0 || !is_ident_char(src[pos - 1]) ||
                                    src[pos - 1] == 'L' || src[pos - 1] == 'u' ||
                                    src[pos - 1] == 'U' || src[pos - 1] == '8')) {
        /* Raw string R"delim( ... )delim" */
        char closing[24] = ")";
        size_t d = pos + 2, n = 0;
        while (d < src_len && src[d] != '(' && n < 16) closing[1 + n++] = src[d++];
        closing[1 + n] = '"';
        closing[2 + n] = 0;
        const char *end = strstr(src + d, closing);
        return end ? (size_t)(end - src) + strlen(closing) : src_len;
    }
    if (c == '"' || c == '\'') {
        for (i = pos + 1; i < src_len && src[i] != c && src[i] != '\n'; i++)
            if (src[i] == '\\') i++;
        return i < src_len ? i + 1 : i;
    }
    if (c >= '0' && c <= '9' && (pos == 0 || !is_ident_char(src[pos - 1]))) {
        /* A number, including digit separators (1'000) and exponents (1e-5f, 0x1p+3). */
        for (i = pos + 1; i < src_len; i++) {
            char d = src[i];
            if (is_ident_char(d) || d == '.' || (d == '\'' && i + 1 < src_len && is_ident_char(src[i + 1])))
                continue;
            if ((d == '+' || d == '-') && strchr("eEpP", src[i - 1])) continue;
            break;
        }
        return i;
    }
    return pos;
}

static size_t skip_space_and_comments(size_t pos) {
    for (;;) {
        while (pos < src_len && (is_space(src[pos]) || src[pos] == '\n')) pos++;
        if (pos + 1 < src_len && src[pos] == '/' && (src[pos + 1] == '/' || src[pos + 1] == '*'))
            pos = skip_literal(pos);
        else
            return pos;
    }
}

static int count_newlines(const char *text, size_t n) {
    int count = 0;
    for (size_t i = 0; i < n; i++) count += text[i] == '\n';
    return count;
}

/* ---- Rewrite 8: `__shared__ alignas(N) T x;` ------------------------------------------------- */

/* __shared__ stands for a storage class (include/cuda_emu/device.h), after which C++ allows no
 * alignas: it goes first, `alignas(N) __shared__ T x;`. The same characters change places in
 * `text` (the input), so every line keeps its number. */
static void put_alignas_first(char *text) {
    for (size_t i = 0; i < src_len;) {
        size_t skipped = skip_literal(i);
        if (skipped != i || !is_ident_char(text[i])) {
            i = skipped != i ? skipped : i + 1;
            continue;
        }
        size_t end = i;
        while (end < src_len && is_ident_char(text[end])) end++;
        size_t word = skip_space_and_comments(end);
        size_t open = word + 7 <= src_len ? skip_space_and_comments(word + 7) : src_len;
        if (end - i == 10 && strncmp(text + i, "__shared__", 10) == 0 && open < src_len &&
            strncmp(text + word, "alignas", 7) == 0 && !is_ident_char(text[word + 7]) && text[open] == '(') {
            size_t close = open;
            for (int depth = 0; close < src_len; close++) {
                if (text[close] == '(') depth++;
                if (text[close] == ')' && --depth == 0) break;
            }
            if (close < src_len) {
                size_t alignas_len = close + 1 - word, between = word - end;
                char *moved = malloc(close + 1 - i);
                memcpy(moved, text + word, alignas_len);
                memcpy(moved + alignas_len, text + end, between);
                memcpy(moved + alignas_len + between, "__shared__", 10);
                memcpy(text + i, moved, close + 1 - i);
                free(moved);
                end = close + 1;
            }
        }
        i = end;
    }
}

/* ---- Rewrite 1: kernel launches --------------------------------------------------------------- */

/* Walks back over the kernel expression already copied to the output (ns::kernel<T, 4>) and
 * returns where it starts. */
static size_t kernel_name_start(size_t end, size_t launch_pos) {
    size_t p = end;
    for (;;) {
        if (p > 0 && out[p - 1] == '>') { /* template arguments: find the matching '<' */
            int depth = 0;
            do {
                if (p == 0) fail(launch_pos, "cannot find the kernel name before <<<");
                p--;
                if (out[p] == '>') depth++;
                if (out[p] == '<') depth--;
            } while (depth > 0);
            while (p > 0 && is_space(out[p - 1])) p--;
        }
        if (p > 0 && out[p - 1] == ')') { /* (*kernel_pointer) */
            int depth = 0;
            do {
                if (p == 0) fail(launch_pos, "unbalanced parentheses before <<<");
                p--;
                if (out[p] == ')') depth++;
                if (out[p] == '(') depth--;
            } while (depth > 0);
            return p;
        }
        size_t ident_end = p;
        while (p > 0 && is_ident_char(out[p - 1])) p--;
        if (p == ident_end) fail(launch_pos, "cannot find the kernel name before <<<");
        size_t q = p;
        while (q > 0 && is_space(out[q - 1])) q--;
        if (q >= 2 && out[q - 1] == ':' && out[q - 2] == ':') {
            q -= 2;
            size_t r = q;
            while (r > 0 && is_space(out[r - 1])) r--;
            if (r > 0 && (is_ident_char(out[r - 1]) || out[r - 1] == '>')) {
                p = r;
                continue;
            }
            return q; /* leading :: */
        }
        return p;
    }
}

/* src[pos] is the first '<' of `<<<`. Returns the position just after the launch's '('. */
static size_t rewrite_launch(size_t pos) {
    /* The configuration ends at the first `>>>` outside any brackets. */
    size_t config_start = pos + 3, i = config_start;
    int depth = 0;
    for (;;) {
        if (i + 2 >= src_len) fail(pos, "kernel launch <<< without a closing >>>");
        size_t skipped = skip_literal(i);
        if (skipped != i) { i = skipped; continue; }
        char c = src[i];
        if (c == '(' || c == '[' || c == '{') depth++;
        if (c == ')' || c == ']' || c == '}') depth--;
        if (depth == 0 && c == '>' && src[i + 1] == '>' && src[i + 2] == '>') break;
        i++;
    }
    size_t config_end = i;
    size_t open_paren = skip_space_and_comments(config_end + 3);
    if (open_paren >= src_len || src[open_paren] != '(')
        fail(pos, "expected the kernel's argument list '(' after >>>");
    int no_arguments = src[skip_space_and_comments(open_paren + 1)] == ')';

    /* Take the kernel name back out of the output. */
    size_t name_end = out_len;
    while (name_end > 0 && (is_space(out[name_end - 1]) || out[name_end - 1] == '\n')) name_end--;
    size_t name_start = kernel_name_start(name_end, pos);
    size_t name_len = name_end - name_start;
    char *name = malloc(name_len + 1);
    memcpy(name, out + name_start, name_len);
    name[name_len] = 0;
    /* Newlines inside the name or between it and <<< are re-emitted after it. */
    int name_newlines = count_newlines(out + name_start, out_len - name_start);
    for (size_t k = 0; k < name_len; k++)
        if (name[k] == '\n' || name[k] == '\t') name[k] = ' ';
    out_len = name_start;

    emit_str("::cuda_emu::launch(::cuda_emu::config(");
    emit(src + config_start, config_end - config_start);
    emit_str("), \"");
    for (size_t k = 0; k < name_len; k++) {
        if (name[k] == '"' || name[k] == '\\') emit("\\", 1);
        emit(name + k, 1);
    }
    emit_str("\", [=](auto&&... cuda_emu_args) { ");
    emit_str(name);
    emit_str("(cuda_emu_args...); }");
    if (!no_arguments) emit_str(", ");
    for (int k = 0; k < name_newlines; k++) emit_str("\n");
    /* Keep whatever lay between >>> and ( (spaces, comments, newlines). */
    emit(src + config_end + 3, open_paren - (config_end + 3));
    free(name);
    return open_paren + 1;
}

/* ---- Rewrite 2: extern __shared__ arrays ------------------------------------------------------ */

/* 1 when the declaration after `extern` (from pos to its ';') has the word __shared__. */
static int declares_shared(size_t pos) {
    for (size_t k = pos; k < src_len && src[k] != ';' && src[k] != '{' && src[k] != '"'; k++)
        if (strncmp(src + k, "__shared__", 10) == 0 && !is_ident_char(src[k + 10]) &&
            (k == 0 || !is_ident_char(src[k - 1])))
            return 1;
    return 0;
}

/* src[pos] starts `extern __shared__ ...;`. Returns the position after the ';'.
 * The array may have more dimensions, all but the first given: `extern __shared__ float s[][33];`
 * becomes a pointer to rows, `float (*const s)[33] = ...`, indexed as s[i][j] like the array. */
static size_t rewrite_extern_shared(size_t pos, int at_namespace_scope) {
    /* __shared__ may stand anywhere among the type's words: extern double __shared__ s[]; */
    size_t type_start = pos + strlen("extern");
    const char *semicolon = memchr(src + pos, ';', src_len - pos);
    if (!semicolon) fail(pos, "extern __shared__ declaration without ';'");
    size_t end = (size_t)(semicolon - src);
    const char *first_bracket = memchr(src + type_start, '[', end - type_start);
    if (!first_bracket) fail(pos, "extern __shared__ must declare an array: extern __shared__ T name[];");
    size_t bracket = (size_t)(first_bracket - src);
    size_t name_end = bracket;
    while (name_end > type_start && (is_space(src[name_end - 1]) || src[name_end - 1] == '\n')) name_end--;
    size_t name_start = name_end;
    while (name_start > type_start && is_ident_char(src[name_start - 1])) name_start--;
    if (name_start == name_end) fail(pos, "cannot find the name in this extern __shared__ declaration");
    /* The dimensions after the first, `[33]` in s[][33], with newlines made spaces. */
    size_t rows = bracket + 1;
    while (rows < end && src[rows] != ']') rows++;
    if (rows < end) rows++;
    char *row_dims = malloc(end - rows + 1);
    size_t row_len = 0;
    for (size_t k = rows; k < end; k++) row_dims[row_len++] = src[k] == '\n' ? ' ' : src[k];
    row_dims[row_len] = 0;

    /* The element type, without __align__(n): alignment comes from the emulator's buffer. */
    char *type = malloc(name_start - type_start + 1);
    size_t type_len = 0;
    for (size_t k = type_start; k < name_start; k++) {
        if (strncmp(src + k, "__align__", 9) == 0) {
            k += 9;
            while (k < name_start && src[k] != ')') k++;
            continue;
        }
        if (strncmp(src + k, "__shared__", 10) == 0) {
            k += 9;
            continue;
        }
        type[type_len++] = src[k] == '\n' ? ' ' : src[k];
    }
    type[type_len] = 0;

    char name[256];
    size_t name_len = name_end - name_start < 255 ? name_end - name_start : 255;
    memcpy(name, src + name_start, name_len);
    name[name_len] = 0;

    if (at_namespace_scope) {
        emit_str("static ::cuda_emu::dynamic_shared_array<");
        emit_str(type);
        emit_str(row_dims);
        emit_str("> ");
        emit_str(name);
        emit_str(";");
    } else {
        /* T *const name, or T (*const name)[N] for rows of N; the cast's type is
         * decltype(+name), the pointer without its const, which a cast cannot keep
         * (and -Wall would say so). */
        emit_str(type);
        emit_str(row_len ? " (*const " : " *const ");
        emit_str(name);
        emit_str(row_len ? ")" : "");
        emit_str(row_dims);
        emit_str(" = (decltype(+");
        emit_str(name);
        emit_str("))::cuda_emu::dynamic_shared_base;");
    }
    for (int k = count_newlines(src + pos, end - pos); k > 0; k--) emit_str("\n");
    free(type);
    free(row_dims);
    return end + 1;
}

/* ---- Rewrite 7: the functions a kernel calls, for their static __shared__ variables ------------ */

static int in_directive(size_t pos);

/* A word with arguments that may come before a function's name: an attribute (or decltype) */
static int is_specifier_with_arguments(const char *word, size_t len) {
    return (len == 17 && strncmp(word, "__launch_bounds__", 17) == 0) ||
           (len == 16 && strncmp(word, "__cluster_dims__", 16) == 0) ||
           (len == 13 && strncmp(word, "__attribute__", 13) == 0) ||
           (len == 9 && strncmp(word, "__align__", 9) == 0) ||
           (len == 8 && strncmp(word, "decltype", 8) == 0);
}

/* src[open] is '(': the position after its ')' */
static size_t skip_parentheses(size_t open) {
    size_t i = open;
    int depth = 0;
    do {
        if (src[i] == '(') depth++;
        if (src[i] == ')') depth--;
        i++;
    } while (i < src_len && depth > 0);
    return i;
}

/* A __device__ function is known to the runtime by this number made from its name (64-bit
 * FNV-1a): a kernel's call names it so, in whichever file it is defined. */
static unsigned long long name_key(const char *name, size_t len) {
    unsigned long long key = 14695981039346656037ULL;
    for (size_t k = 0; k < len; k++) key = (key ^ (unsigned char)name[k]) * 1099511628211ULL;
    return key;
}

/* Words before '(' that call no function */
static int is_call_keyword(const char *word, size_t len) {
    static const char *const keywords[] = {
        "if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "typeid",
        "static_assert", "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast",
        "noexcept", "alignas", "catch", "throw", "new", "delete", "case", "do", "else", "defined"};
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
        if (strlen(keywords[k]) == len && strncmp(word, keywords[k], len) == 0) return 1;
    return len >= 2 && word[0] == '_' && word[1] == '_'; /* __syncthreads, __shfl_sync: built in */
}

/* src[open] is the '{' of a kernel's or a __device__ function's body. Emits, after it, a note of
 * each function the body calls by name (name(...) or name<...>(...), not a member's obj.name()),
 * from the kernel (its address) or from the function (its key): the runtime then counts the
 * static __shared__ variables of the functions a kernel reaches, as a GPU's compiler does. A
 * name that is no __device__ function with __shared__ variables costs a note and counts
 * nothing. */
static void emit_calls(size_t open, const char *kernel, const char *function) {
    unsigned long long seen[128];
    int seen_count = 0, depth = 0;
    for (size_t i = open; i < src_len;) {
        size_t skipped = skip_literal(i);
        if (skipped != i) { i = skipped; continue; }
        char c = src[i];
        if (c == '{') depth++;
        if (c == '}' && --depth == 0) break;
        if (!is_ident_char(c)) { i++; continue; }
        size_t word = i;
        while (i < src_len && is_ident_char(src[i])) i++;
        if (word > 0 && (src[word - 1] == '.' || (src[word - 1] == '>' && word > 1 && src[word - 2] == '-')))
            continue;
        size_t after = skip_space_and_comments(i);
        if (after < src_len && src[after] == '<') { /* name<...>(: the template's arguments */
            int angle = 0;
            for (; after < src_len && !strchr(";{}", src[after]); after++) {
                if (src[after] == '<') angle++;
                if (src[after] == '>' && --angle == 0) break;
            }
            if (after >= src_len || src[after] != '>') continue;
            after = skip_space_and_comments(after + 1);
        }
        if (after >= src_len || src[after] != '(' || is_call_keyword(src + word, i - word)) continue;
        unsigned long long key = name_key(src + word, i - word);
        int known = 0;
        for (int k = 0; k < seen_count; k++) known |= seen[k] == key;
        if (known || seen_count == 128) continue;
        seen[seen_count++] = key;
        char text[200];
        if (kernel) {
            emit_str(" (void)::cuda_emu::KernelCalls<");
            emit_str(kernel);
            snprintf(text, sizeof text, ", 0x%016llxULL>::noted;", key);
        } else {
            snprintf(text, sizeof text, " (void)::cuda_emu::FunctionCalls<%s, 0x%016llxULL>::noted;",
                     function, key);
        }
        emit_str(text);
    }
}

/* src[pos] starts the word __device__ at namespace scope. When it declares a function, not
 * constexpr (whose body must stay a constant expression) nor a macro's, returns its key, the
 * text of a constant (malloc'ed), for its body's notes; else NULL. */
static char *device_function_key(size_t pos) {
    if (in_directive(pos)) return NULL;
    size_t back = out_len;
    while (back > 0 && !strchr(";{}", out[back - 1])) back--;
    for (size_t k = back; k + 9 <= out_len; k++)
        if ((strncmp(out + k, "constexpr", 9) == 0 || strncmp(out + k, "consteval", 9) == 0) &&
            (k == 0 || !is_ident_char(out[k - 1])) && !is_ident_char(out[k + 9]))
            return NULL;
    size_t i = pos + 10;
    while (i < src_len && !strchr(";{=", src[i])) {
        size_t skipped = skip_literal(i);
        if (skipped != i) { i = skipped; continue; }
        if (src[i] == '[' && i + 1 < src_len && src[i + 1] == '[') { /* [[nodiscard]] */
            const char *end = strstr(src + i, "]]");
            if (!end) return NULL;
            i = (size_t)(end - src) + 2;
            continue;
        }
        if (src[i] == '[') return NULL; /* an array */
        if (is_ident_char(src[i])) {
            size_t word = i;
            while (i < src_len && is_ident_char(src[i])) i++;
            if ((i - word == 9 && (strncmp(src + word, "constexpr", 9) == 0 ||
                                   strncmp(src + word, "consteval", 9) == 0)))
                return NULL;
            size_t after = skip_space_and_comments(i);
            if (after < src_len && src[after] == '(') {
                if (is_specifier_with_arguments(src + word, i - word)) {
                    i = skip_parentheses(after);
                    continue;
                }
                char *key = malloc(32);
                snprintf(key, 32, "0x%016llxULL", name_key(src + word, i - word));
                return key;
            }
            continue;
        }
        if (src[i] == '(') return NULL; /* (*pointer)(...): no function's name */
        i++;
    }
    return NULL;
}

/* ---- Rewrite 4 (--sanitize): where static __shared__ variables lie ---------------------------- */

static int extent_count;

/* src[pos] starts `__shared__ ...;` inside a function. Copies the declaration; with extents (5,
 * 6), registers each declared variable (`T a[4], b;` declares a and b) and adds a gap after
 * them; inside a kernel's body (kernel: its address, as the text of a constant expression), notes
 * each variable's size for the kernel (7). */
static size_t register_static_shared(size_t pos, int extents, const char *kernel,
                                     const char *function) {
    size_t end = pos, declarator_start = pos + strlen("__shared__");
    int depth = 0;
    char names[16][128];
    int name_count = 0;
    size_t name_start = 0, name_len = 0; /* the last identifier seen at depth 0 */
    int named = 0;                       /* this declarator's name is known */
    for (;;) {
        if (end >= src_len) fail(pos, "__shared__ declaration without ';'");
        size_t skipped = skip_literal(end);
        if (skipped != end) {
            end = skipped;
            continue;
        }
        char c = src[end];
        if (depth == 0 && is_ident_char(c)) {
            size_t word = end;
            while (end < src_len && is_ident_char(src[end])) end++;
            if (!named) name_start = word, name_len = end - word;
            continue;
        }
        if (c == '(' || c == '[' || c == '{' || c == '<') {
            if (depth == 0 && (c == '[' || c == '{')) named = 1;
            depth++;
        } else if (c == ')' || c == ']' || c == '}' || c == '>') {
            depth--;
        } else if (depth == 0 && c == '=') {
            named = 1;
        } else if (depth == 0 && (c == ',' || c == ';')) {
            if (name_len > 0 && name_len < 127 && name_count < 16) {
                memcpy(names[name_count], src + name_start, name_len);
                names[name_count++][name_len] = 0;
            }
            named = 0;
            name_len = 0;
            if (c == ';') break;
        }
        end++;
    }
    (void)declarator_start;
    /* A gap before the declaration too, when it starts a statement: compilers lay thread_locals
     * out in declaration order or in reverse, so one of the two gaps follows the variable. An
     * `alignas(N)` in front (rewrite 8 puts it there) belongs to the declaration: the gap goes
     * before it. */
    size_t last = out_len;
    while (last > 0 && (is_space(out[last - 1]) || out[last - 1] == '\n')) last--;
    size_t declaration_start = last;
    if (last > 0 && out[last - 1] == ')') {
        size_t open = last - 1;
        for (int parens = 0; open > 0; open--) {
            if (out[open] == ')') parens++;
            if (out[open] == '(' && --parens == 0) break;
        }
        size_t word = open;
        while (word > 0 && (is_space(out[word - 1]) || out[word - 1] == '\n')) word--;
        if (word >= 7 && strncmp(out + word - 7, "alignas", 7) == 0 &&
            (word == 7 || !is_ident_char(out[word - 8]))) {
            declaration_start = word - 7;
            last = declaration_start;
            while (last > 0 && (is_space(out[last - 1]) || out[last - 1] == '\n')) last--;
        }
    }
    if (extents && name_count > 0 && last > 0 && strchr(";{}", out[last - 1])) {
        /* the alignas, and the spaces after it, follow the gap */
        size_t moved_len = out_len - declaration_start;
        char *moved = malloc(moved_len);
        memcpy(moved, out + declaration_start, moved_len);
        out_len = declaration_start;
        char text[400];
        int gap = extent_count++;
        snprintf(text, sizeof text,
                 "static thread_local char cuda_emu_shared_gap_%d[64];"
                 " ::cuda_emu::shared_extent_here(cuda_emu_shared_gap_%d, 64, nullptr); ", gap, gap);
        emit_str(text);
        emit(moved, moved_len);
        free(moved);
    }
    emit(src + pos, end + 1 - pos);
    for (int k = 0; kernel && k < name_count; k++) {
        emit_str(" (void)::cuda_emu::StaticShared<");
        emit_str(kernel);
        emit_str(", sizeof(");
        emit_str(names[k]);
        emit_str("), __COUNTER__>::noted;");
    }
    for (int k = 0; function && k < name_count; k++) {
        /* the variable by its name and line, the same in every file that includes this one */
        char where[160], text[400];
        snprintf(where, sizeof where, "%s:%d", names[k], line_of(pos));
        snprintf(text, sizeof text,
                 " (void)::cuda_emu::FunctionShared<%s, 0x%016llxULL, sizeof(%s)>::noted;",
                 function, name_key(where, strlen(where)), names[k]);
        emit_str(text);
    }
    if (!extents) return end + 1;
    for (int k = 0; k < name_count; k++) {
        char text[512];
        snprintf(text, sizeof text, " ::cuda_emu::shared_extent_here(&%s, sizeof(%s), \"%s\");",
                 names[k], names[k], names[k]);
        emit_str(text);
    }
    if (name_count > 0) {
        char text[400];
        int gap = extent_count++;
        snprintf(text, sizeof text,
                 " static thread_local char cuda_emu_shared_gap_%d[64];"
                 " ::cuda_emu::shared_extent_here(cuda_emu_shared_gap_%d, 64, nullptr);", gap, gap);
        emit_str(text);
    }
    return end + 1;
}

/* ---- Rewrite 4: noting kernels at startup --------------------------------------------------- */

/* 1 when pos lies on a preprocessor line (a macro definition, say), counting continued lines. */
static int in_directive(size_t pos) {
    size_t start = pos;
    for (;;) {
        while (start > 0 && src[start - 1] != '\n') start--;
        if (start >= 2 && src[start - 2] == '\\') { start -= 2; continue; }
        break;
    }
    while (start < pos && is_space(src[start])) start++;
    return src[start] == '#';
}

/* out[pos] follows the word `template` of a template's header: `<typename T, int N = 4, class...
 * Ts>`. Returns the list of its parameters as arguments, "T, N, Ts...", or NULL when there is
 * none (`template <>`, an explicit specialization) or the header cannot be read. */
static char *template_arguments(size_t pos) {
    while (pos < out_len && (is_space(out[pos]) || out[pos] == '\n')) pos++;
    if (pos >= out_len || out[pos] != '<') return NULL;
    size_t cap = 256, len = 0;
    char *args = malloc(cap);
    int depth = 0, pack = 0, in_default = 0;
    size_t name_start = 0, name_len = 0; /* the last identifier of this parameter */
    for (size_t i = pos + 1; i < out_len; i++) {
        char c = out[i];
        if (c == '/' && i + 1 < out_len && (out[i + 1] == '*' || out[i + 1] == '/')) {
            const char *end = out[i + 1] == '*' ? "*/" : "\n"; /* a comment says no name */
            while (i + 1 < out_len && strncmp(out + i + 1, end, strlen(end)) != 0) i++;
            i += strlen(end);
            continue;
        }
        if (depth == 0 && (c == ',' || c == '>')) {
            if (name_len == 0) break; /* an unnamed parameter cannot be passed on */
            if (len + name_len + 8 >= cap) args = realloc(args, cap = 2 * (cap + name_len));
            if (len > 0) args[len++] = ',', args[len++] = ' ';
            memcpy(args + len, out + name_start, name_len);
            len += name_len;
            if (pack) memcpy(args + len, "...", 3), len += 3;
            if (c == '>') {
                args[len] = 0;
                return args;
            }
            pack = in_default = 0;
            name_len = 0;
            continue;
        }
        if (c == '<' || c == '(' || c == '[') depth++;
        if (c == '>' || c == ')' || c == ']') depth--;
        if (depth == 0 && c == '=') in_default = 1;
        if (depth == 0 && !in_default && c == '.') pack = 1;
        if (depth == 0 && !in_default && is_ident_char(c) && (i == 0 || !is_ident_char(out[i - 1]))) {
            name_start = i;
            name_len = 0;
            while (i + name_len < out_len && is_ident_char(out[i + name_len])) name_len++;
            i += name_len - 1;
        }
    }
    free(args);
    return NULL;
}

/* src[pos] starts the word __global__. Returns the registration to emit after the declaration
 * ends (malloc'ed), or NULL when there is none to make: a template, a class member, a macro.
 * With a registration, *address is the kernel's address as a constant expression that picks it
 * out of its overloads, static_cast<void (*)(PARAMETERS)>(&name) (malloc'ed); for a template at
 * namespace scope, with no registration, the address of the instance its body is compiled for,
 * static_cast<void (*)(PARAMETERS)>(&name<ARGUMENTS>). */
static char *kernel_registration(size_t pos, int at_namespace_scope, char **address) {
    *address = NULL;
    if (!at_namespace_scope || in_directive(pos)) return NULL;
    /* `template <...>` before, since the end of the previous declaration? Then no startup note
     * (its instances are not known here), but its body's static __shared__ sizes are noted for
     * the instance the body is compiled for: name<its parameters> (7). */
    size_t back = out_len;
    while (back > 0 && !strchr(";{}", out[back - 1])) back--;
    char *template_args = NULL;
    for (size_t k = back; k + 8 <= out_len; k++)
        if (strncmp(out + k, "template", 8) == 0 && (k == 0 || !is_ident_char(out[k - 1])) &&
            !is_ident_char(out[k + 8])) {
            template_args = template_arguments(k + 8);
            if (!template_args) return NULL;
            break;
        }
    /* The name is the identifier (or ns::name) before the first '(' that is not
     * __launch_bounds__(...) or another attribute's. */
    size_t i = pos + 10, open = 0;
    while (i < src_len && !strchr(";{", src[i])) {
        size_t skipped = skip_literal(i);
        if (skipped != i) { i = skipped; continue; }
        if (src[i] == '(') {
            size_t e = i;
            while (e > pos && is_space(src[e - 1])) e--;
            size_t b = e;
            while (b > pos && (is_ident_char(src[b - 1]) || src[b - 1] == ':')) b--;
            if (b == e) { free(template_args); return NULL; }
            if (!is_specifier_with_arguments(src + b, e - b)) {
                open = i;
                break;
            }
            i = skip_parentheses(i);
            continue;
        }
        i++;
    }
    if (!open) { free(template_args); return NULL; }
    size_t name_end = open;
    while (name_end > pos && is_space(src[name_end - 1])) name_end--;
    size_t name_start = name_end;
    while (name_start > pos && (is_ident_char(src[name_start - 1]) || src[name_start - 1] == ':')) name_start--;
    /* The parameter list, on one line, without comments or default arguments. */
    size_t cap = 256 + 2 * (name_end - name_start), len = 0;
    int depth = 0, in_default = 0;
    char *params = malloc(cap);
    for (i = open + 1; i < src_len; i++) {
        size_t skipped = skip_literal(i);
        if (skipped != i && (src[i] == '/')) { i = skipped - 1; continue; }
        char c = src[i];
        /* #ifdef inside the list: which parameters there are is the preprocessor's to say, so
         * the kernel goes unnoted (launched by name it runs as before; see 4) */
        if (c == '#' && in_directive(i)) { free(params); free(template_args); return NULL; }
        if (c == '(' || c == '[' || c == '<' || c == '{') depth++;
        if (c == ')' || c == ']' || c == '>' || c == '}') {
            if (depth == 0 && c == ')') break;
            depth--;
        }
        if (depth == 0 && c == '=') in_default = 1;
        if (depth == 0 && c == ',') in_default = 0;
        if (in_default) continue;
        if (c == '\n' || c == '\t' || c == '\r') c = ' ';
        if (len + 2 >= cap) params = realloc(params, cap *= 2);
        params[len++] = c;
    }
    if (i >= src_len) { free(params); free(template_args); return NULL; }
    params[len] = 0;
    if (template_args) {
        *address = malloc(len + (name_end - name_start) + strlen(template_args) + 64);
        sprintf(*address, "static_cast<void (*)(%s)>(&%.*s<%s>)", params,
                (int)(name_end - name_start), src + name_start, template_args);
        free(template_args);
        free(params);
        return NULL;
    }
    char *text = malloc(len + 2 * (name_end - name_start) + 200);
    /* __COUNTER__ names it: a rewritten header included into a .cu counts from 0 too. */
    sprintf(text, " [[maybe_unused]] static const bool CUDA_EMU_NOTED_KERNEL(__COUNTER__) = "
                  "::cuda_emu::note_kernel_at_startup<void(%s)>(%.*s, \"%.*s\");",
            params, (int)(name_end - name_start), src + name_start,
            (int)(name_end - name_start), src + name_start);
    *address = malloc(len + (name_end - name_start) + 64);
    sprintf(*address, "static_cast<void (*)(%s)>(&%.*s)", params, (int)(name_end - name_start),
            src + name_start);
    free(params);
    return text;
}

/* ---- Rewrite 6 (--profile): branch conditions in device code ---------------------------------- */

/* src[pos] starts the word `if` or `while` (len letters) in a device function's body. When a
 * condition in parentheses follows (not `if constexpr`), emits the keyword and the condition
 * wrapped in profile_branch(...) and returns the position after the ')'; else returns pos. */
static size_t wrap_branch(size_t pos, size_t len) {
    size_t open = skip_space_and_comments(pos + len);
    if (open >= src_len || src[open] != '(' || in_directive(pos)) return pos;
    size_t close = open + 1;
    int depth = 1;
    while (close < src_len) {
        size_t skipped = skip_literal(close);
        if (skipped != close) { close = skipped; continue; }
        if (src[close] == '(') depth++;
        if (src[close] == ')' && --depth == 0) break;
        close++;
    }
    if (close >= src_len) return pos;
    emit(src + pos, open - pos);
    emit_str("(::cuda_emu::profile_branch(");
    emit(src + open + 1, close - open - 1);
    emit_str("))");
    return close + 1;
}

/* ---- Main scan -------------------------------------------------------------------------------- */
/* src[at] starts the word asm (or __asm, __asm__) and src[after] follows it. When its first
 * string is PTX, the GPU's assembly language (an opcode with a type suffix, mov.u32, or a .reg
 * declaration), the build stops there: the host's assembler would only say "no such instruction".
 * Host assembly (rdtsc, pause, an empty barrier) goes through. */
static void refuse_ptx(size_t at, size_t after) {
    size_t pos = skip_space_and_comments(after);
    while (pos < src_len && is_ident_char(src[pos])) { /* volatile, __volatile__, inline, goto */
        while (pos < src_len && is_ident_char(src[pos])) pos++;
        pos = skip_space_and_comments(pos);
    }
    if (pos >= src_len || src[pos] != '(') return;
    pos = skip_space_and_comments(pos + 1);
    if (pos >= src_len || src[pos] != '"') return;
    pos++;
    /* blanks, braces and escapes (\t, \n) before the first instruction */
    while (pos < src_len && src[pos] && strchr(" \t{\\", src[pos])) pos += src[pos] == '\\' ? 2 : 1;
    char opcode[40];
    size_t n = 0;
    if (pos < src_len && src[pos] == '.') opcode[n++] = src[pos++];
    while (pos < src_len && (is_ident_char(src[pos]) || src[pos] == '.') && n < sizeof opcode - 1)
        opcode[n++] = src[pos++];
    opcode[n] = 0;
    const char *dot = strchr(opcode, '.');
    if (!dot || (dot == opcode && strncmp(opcode, ".reg", 4) != 0)) return;
    char message[400];
    snprintf(message, sizeof message,
             "cuda-emu: inline PTX assembly (%s) is not emulated: kernels run as CPU code here. Use "
             "the CUDA intrinsic that does the same (__vabsdiffu4, __byte_perm, __funnelshift_l, "
             "__activemask, ...), or keep the asm where CUDA_EMULATION is not defined",
             opcode);
    fail(at, message);
}

int main(int argc, char **argv) {
    int sanitize = 0, profile = 0, bad_flag = 0;
    for (int a = 4; a < argc; a++) {
        if (strcmp(argv[a], "--sanitize") == 0) sanitize = 1;
        else if (strcmp(argv[a], "--profile") == 0) profile = 1;
        else bad_flag = 1;
    }
    if (argc < 4 || bad_flag) {
        fprintf(stderr, "usage: emu-rewrite INPUT.cu OUTPUT.cpp NAME_FOR_ERRORS [--sanitize] [--profile]\n");
        return 2;
    }
    input_name = argv[3];
    FILE *in = fopen(argv[1], "rb");
    if (!in) { perror(argv[1]); return 1; }
    size_t cap = 1 << 16;
    char *buffer = malloc(cap + 1);
    size_t n;
    while ((n = fread(buffer + src_len, 1, cap - src_len, in)) > 0) {
        src_len += n;
        if (src_len == cap) buffer = realloc(buffer, (cap *= 2) + 1);
    }
    fclose(in);
    buffer[src_len] = 0;
    src = buffer;
    put_alignas_first(buffer);

    emit_str("#line 1 \"");
    for (const char *c = input_name; *c; c++) {
        if (*c == '"' || *c == '\\') emit("\\", 1);
        emit(c, 1);
    }
    emit_str("\"\n");

    /* Braces: we track which ones open a namespace (or extern "C"), to tell whether an
     * extern __shared__ declaration sits inside a function or at namespace scope. */
    char brace_is_namespace[1024];
    int brace_depth = 0, next_brace_is_namespace = 0;
    /* A kernel's registration waits for the end of its declaration: the ';' or the body's '}'
     * at the brace depth where __global__ stood. */
    char *pending_registration = NULL;
    int registration_depth = 0;
    /* The kernel whose body the rewriter is in (its address, from kernel_registration), while the
     * depth stays at or above kernel_body_depth (-1: none), for its static __shared__ sizes. */
    char *pending_address = NULL, *kernel_address = NULL;
    int kernel_body_depth = -1;
    /* A __device__ function at namespace scope: its key (device_function_key) from __device__ to
     * its body's '{' (pending; a ';' first: a declaration), then while the depth stays at or
     * above function_body_depth (-1: none), for its calls and static __shared__ sizes. */
    char *pending_function = NULL, *function_key = NULL;
    int function_depth = 0, function_body_depth = -1;
    /* --profile: after __global__ or __device__, the next '{' (before a ';') opens a device
     * function's body, which lasts while the depth stays above device_depth (-1: none). */
    int device_pending = 0, device_depth = -1;

    size_t i = 0;
    while (i < src_len) {
        size_t skipped = skip_literal(i);
        if (skipped != i) {
            emit(src + i, skipped - i);
            i = skipped;
            continue;
        }
        char c = src[i];
        if (is_ident_char(c)) {
            size_t end = i;
            while (end < src_len && is_ident_char(src[end])) end++;
            size_t len = end - i;
            if (len == 9 && strncmp(src + i, "namespace", 9) == 0) next_brace_is_namespace = 1;
            if (profile && device_depth >= 0 &&
                ((len == 2 && strncmp(src + i, "if", 2) == 0) ||
                 (len == 5 && strncmp(src + i, "while", 5) == 0))) {
                size_t after = wrap_branch(i, len);
                if (after != i) {
                    i = after;
                    continue;
                }
            }
            if (profile && device_depth < 0 && !in_directive(i) &&
                ((len == 10 && strncmp(src + i, "__global__", 10) == 0) ||
                 (len == 10 && strncmp(src + i, "__device__", 10) == 0)))
                device_pending = 1;
            if (len == 10 && strncmp(src + i, "__shared__", 10) == 0 &&
                (sanitize || profile || kernel_address || function_key) && brace_depth > 0 &&
                !brace_is_namespace[brace_depth - 1]) {
                i = register_static_shared(i, sanitize || profile, kernel_address, function_key);
                continue;
            }
            if (len == 10 && strncmp(src + i, "__device__", 10) == 0 && !pending_function &&
                function_body_depth < 0 && kernel_body_depth < 0 &&
                (brace_depth == 0 || brace_is_namespace[brace_depth - 1])) {
                pending_function = device_function_key(i);
                function_depth = brace_depth;
            }
            if (len == 6 && strncmp(src + i, "extern", 6) == 0) {
                size_t next = skip_space_and_comments(end);
                if (declares_shared(end)) {
                    int at_namespace_scope = brace_depth == 0 || brace_is_namespace[brace_depth - 1];
                    i = rewrite_extern_shared(i, at_namespace_scope);
                    continue;
                }
                if (src[next] == '"') next_brace_is_namespace = 1; /* extern "C" { */
            }
            if (len == 10 && strncmp(src + i, "__global__", 10) == 0 && !pending_registration &&
                !pending_address) {
                int at_namespace_scope = brace_depth == 0 || brace_is_namespace[brace_depth - 1];
                pending_registration = kernel_registration(i, at_namespace_scope, &pending_address);
                registration_depth = brace_depth;
            }
            if (((len == 3 && strncmp(src + i, "asm", 3) == 0) ||
                 (len == 5 && strncmp(src + i, "__asm", 5) == 0) ||
                 (len == 7 && strncmp(src + i, "__asm__", 7) == 0)) &&
                !in_directive(i))
                refuse_ptx(i, end);
            if (len == 12 && strncmp(src + i, "__noinline__", 12) == 0)
                emit_str("__attribute__((noinline))");
            else
                emit(src + i, len);
            i = end;
            continue;
        }
        if (c == '<' && i + 2 < src_len && src[i + 1] == '<' && src[i + 2] == '<') {
            i = rewrite_launch(i);
            continue;
        }
        int opens_body = 0; /* this '{' opens a kernel's or a __device__ function's body */
        if (c == '{') {
            if (pending_address && brace_depth == registration_depth && kernel_body_depth < 0) {
                kernel_address = pending_address, pending_address = NULL;
                kernel_body_depth = brace_depth + 1;
                opens_body = 1;
            }
            if (pending_function && brace_depth == function_depth && function_body_depth < 0) {
                function_key = pending_function, pending_function = NULL;
                function_body_depth = brace_depth + 1;
                opens_body = 1;
            }
            if (device_pending) device_depth = brace_depth;
            device_pending = 0;
            if (brace_depth < (int)sizeof brace_is_namespace)
                brace_is_namespace[brace_depth] = (char)next_brace_is_namespace;
            brace_depth++;
            next_brace_is_namespace = 0;
        }
        if (c == '}' && brace_depth > 0) brace_depth--;
        if (c == '}' && brace_depth < kernel_body_depth) {
            free(kernel_address);
            kernel_address = NULL;
            kernel_body_depth = -1;
        }
        if (c == '}' && brace_depth < function_body_depth) {
            free(function_key);
            function_key = NULL;
            function_body_depth = -1;
        }
        if (c == '}' && brace_depth == device_depth) device_depth = -1;
        if (c == ';') next_brace_is_namespace = device_pending = 0;
        if ((c == ';' || c == '}') && pending_function && brace_depth == function_depth) {
            free(pending_function); /* a declaration, not a definition */
            pending_function = NULL;
        }
        emit(&c, 1);
        if (opens_body) emit_calls(i, kernel_address, function_key);
        i++;
        if ((pending_registration || pending_address) && brace_depth == registration_depth &&
            (c == ';' || c == '}')) {
            if (pending_registration) emit_str(pending_registration);
            free(pending_registration);
            pending_registration = NULL;
            free(pending_address); /* a declaration, not a definition */
            pending_address = NULL;
        }
    }

    FILE *file = fopen(argv[2], "wb");
    if (!file || fwrite(out, 1, out_len, file) != out_len || fclose(file) != 0) {
        perror(argv[2]);
        return 1;
    }
    return 0;
}
