//go:build tools

// Package tools pins etcd's main package (go.etcd.io/etcd/server/v3) so that `go mod tidy` keeps its
// dependencies; scripts/ensure-kube.mjs builds it with `go build go.etcd.io/etcd/server/v3`.
package tools

import _ "go.etcd.io/etcd/server/v3"
