/* runtime/switch.S - switches the CPU from one emulated GPU thread (fiber) to another.
 *
 * Part of the CPU emulation backend (common/emu/).
 *     void cuda_emu_switch(void** save_sp, void* load_sp);
 * pushes the registers the C calling convention says a function must preserve, stores the stack
 * pointer in *save_sp, loads load_sp and pops the other fiber's registers. Returning then
 * continues the other fiber where it called cuda_emu_switch. That is all a switch needs: the
 * caller-saved registers were already saved by the compiler around the call. About 10
 * instructions, a few nanoseconds, against roughly a microsecond for swapcontext(), which also
 * makes a system call to save the signal mask.
 *
 * cuda_emu_fiber_start is where a fresh stack begins (see prepare_context in scheduler.cpp): it
 * calls entry(arg), which never returns.
 */
#if defined(__x86_64__)
    .text
    .globl cuda_emu_switch
    .type cuda_emu_switch, @function
cuda_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size cuda_emu_switch, .-cuda_emu_switch

    .globl cuda_emu_fiber_start
    .type cuda_emu_fiber_start, @function
cuda_emu_fiber_start:          /* r12 = arg, r13 = entry, stack 16-byte aligned */
    movq %r12, %rdi
    callq *%r13
    ud2
    .size cuda_emu_fiber_start, .-cuda_emu_fiber_start

#elif defined(__aarch64__)
    .text
    .globl cuda_emu_switch
    .type cuda_emu_switch, %function
cuda_emu_switch:               /* x0 = save_sp, x1 = load_sp; saves x19-x30 and d8-d15 */
    sub sp, sp, #160
    stp x19, x20, [sp, #0]
    stp x21, x22, [sp, #16]
    stp x23, x24, [sp, #32]
    stp x25, x26, [sp, #48]
    stp x27, x28, [sp, #64]
    stp x29, x30, [sp, #80]
    stp d8, d9, [sp, #96]
    stp d10, d11, [sp, #112]
    stp d12, d13, [sp, #128]
    stp d14, d15, [sp, #144]
    mov x2, sp
    str x2, [x0]
    mov sp, x1
    ldp x19, x20, [sp, #0]
    ldp x21, x22, [sp, #16]
    ldp x23, x24, [sp, #32]
    ldp x25, x26, [sp, #48]
    ldp x27, x28, [sp, #64]
    ldp x29, x30, [sp, #80]
    ldp d8, d9, [sp, #96]
    ldp d10, d11, [sp, #112]
    ldp d12, d13, [sp, #128]
    ldp d14, d15, [sp, #144]
    add sp, sp, #160
    ret
    .size cuda_emu_switch, .-cuda_emu_switch

    .globl cuda_emu_fiber_start
    .type cuda_emu_fiber_start, %function
cuda_emu_fiber_start:          /* x19 = arg, x20 = entry */
    mov x0, x19
    blr x20
    brk #0
    .size cuda_emu_fiber_start, .-cuda_emu_fiber_start
#endif
/* Other CPUs use the portable version in scheduler.cpp (CUDA_EMU_PORTABLE_SWITCH). */
#if defined(__linux__) && defined(__ELF__)
    .section .note.GNU-stack, "", %progbits
#endif
