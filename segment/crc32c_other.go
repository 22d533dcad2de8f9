//go:build !amd64

package segment

const haveFold = false

func foldCastagnoli(reg uint32, p []byte) uint32 { panic("segment: no CRC-32C folding here") }
