package fleet

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// ParseQuantity checks a CPU or memory quantity ("2", "500m", "1Gi").
func ParseQuantity(s string) error {
	_, err := resource.ParseQuantity(s)
	return err
}

// resources requests and limits the same CPU and memory (a guaranteed
// pod: a generator must not be throttled below what it asked for).
func resources(cpu, mem string) corev1.ResourceRequirements {
	l := corev1.ResourceList{}
	if cpu != "" {
		l[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		l[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return corev1.ResourceRequirements{Requests: l, Limits: l}
}
