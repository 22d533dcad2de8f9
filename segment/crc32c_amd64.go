package segment

import "golang.org/x/sys/cpu"

// haveFold: the CPU and the OS support 512-bit carry-less multiplication
// (cpu.X86.HasAVX512F includes the OS saving the vector state).
var haveFold = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512VPCLMULQDQ &&
	cpu.X86.HasPCLMULQDQ && cpu.X86.HasSSE42

// foldCastagnoli continues the CRC-32C register reg (not inverted) over
// p, whose length is a non-zero multiple of foldBlock.
//
//go:noescape
func foldCastagnoli(reg uint32, p []byte) uint32
