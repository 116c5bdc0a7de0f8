// Package oprss builds one kernel operator over the protein set (or n
// synthetic points) and prints its construction time, one product's time
// and the process's peak resident memory: the check that the float32
// operator at n = 45,730 (4.2 GB of storage) runs within 8 GiB.
//
//	go run ./lab/cmd/kpls-lab oprss --kind float32 --data ../shared/data/protein.csv
package oprss
