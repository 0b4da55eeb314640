//go:build tools

// Package tools pins the kube-apiserver main package so that `go mod tidy` keeps its
// dependencies; scripts/ensure-kube.mjs builds it with `go build k8s.io/kubernetes/cmd/kube-apiserver`.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
