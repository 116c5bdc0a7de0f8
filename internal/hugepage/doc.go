// Package hugepage asks Linux to back large, freshly allocated buffers
// with transparent huge pages. Kernel matrices of gigabytes on 4 KiB pages
// cost one page fault per 4 KiB when first written and a TLB miss every
// few thousand entries when read, and where transparent huge pages are set
// to "madvise" (a common default) only advised memory gets 2 MiB pages.
// Elsewhere the calls do nothing.
package hugepage
