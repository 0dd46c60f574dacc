package main

import "github.com/kube-proxy-lint/kube-proxy-lint/internal/config"

// sizeValue is a pflag.Value for byte sizes: "4194304", "4MiB", "500KB".
type sizeValue int64

func (s *sizeValue) String() string { return config.FormatSize(int64(*s)) }

func (s *sizeValue) Set(v string) error {
	n, err := config.ParseSize(v)
	if err != nil {
		return err
	}
	*s = sizeValue(n)
	return nil
}

func (*sizeValue) Type() string { return "size" }
