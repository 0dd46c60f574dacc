package rules

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// The Kubernetes feature gate table used by KP105 (feature-gate-invalid).
//
// kube-proxy registers every Kubernetes feature gate, not only its own: pkg/features adds all of
// kube_features.go (which relists the apiserver, apiextensions, controller-manager and zpages
// gates), client-go adds its gates and component-base adds the logging and metrics gates. So a
// gate is "known" to kube-proxy when any Kubernetes component knows it at that release, and
// setting a gate no component knows, or one removed from the registry, makes kube-proxy exit with
// "unrecognized feature gate". Setting a gate locked to its default (LockToDefault) to the other
// value makes it exit too.
//
// Where the table comes from (cut-off: Kubernetes v1.37, released 2026-08-26, plus the v1.38.0-beta.0
// facts of RULES.md; looked up 2026-09):
//   - kubernetes/website, the rendered "Feature Gates" page for v1.37 (every gate with its stages)
//     and content/en/docs/reference/command-line-tools-reference/feature-gates/<Gate>.md front
//     matter (stages with fromVersion/toVersion, `locked: true`, `removed: true`), which is also
//     what the "Feature Gates (removed)" page is built from;
//   - kubernetes/kubernetes pkg/features/kube_features.go: the 1.30 development copy
//     (defaultKubernetesFeatureGates with LockToDefault and "remove in" notes), the versioned
//     specs of 1.31, 1.32 (versioned_kube_features.go), 1.33 and 1.36 development
//     (defaultVersionedKubernetesFeatureGates), and component-base v0.37.2 (logs, metrics,
//     zpages gates);
//   - the v1.37 release notes and changelog for gates added or removed in 1.36–1.37 that the
//     stored website page does not list yet (NFTablesNetlink, kubernetes#137536; GangScheduling and
//     WorkloadAwarePreemption removed; the Portworx gates removed in 1.36);
//   - RULES.md for 1.38: NFTablesProxyMode removed, KubeProxyNFTablesLocalhostNodePorts beta.
//
// Where the sources only bound a version, the table takes the bound that cannot produce a false
// error: the earliest release a gate may have been added in and the latest it may have been
// removed in (for example PodDisruptionConditions is in the 1.33 list and gone from the 1.36
// development list: the table says removed in 1.36). Locks are recorded only where a source says
// LockToDefault or `locked: true`. Gates removed before 1.30 are listed only when they concern
// kube-proxy; below 1.30 KP105 therefore does not call a name unknown. Gates that appear after the
// cut-off are not in the table, so past 1.37 an unknown name that is not close to a known one is
// only a warning.
const (
	// gateTableFloor is the first release for which the table lists every gate.
	gateTableFloor = 30
	// gateTableComplete is the last release for which the table lists every gate.
	gateTableComplete = 37
)

// gateInfo is the life cycle of one feature gate. Versions are Kubernetes 1.x minors.
type gateInfo struct {
	Name string
	// Added is the first release that registers the gate.
	Added int
	// Locked is the first release in which the gate is locked to LockedTo (0: never locked).
	Locked   int
	LockedTo bool
	// Removed is the first release without the gate (0: still present at the cut-off).
	Removed int
	// Proxy marks gates that change what kube-proxy does.
	Proxy bool
}

// knownAt reports whether the gate is registered at minor version v.
func (g *gateInfo) knownAt(v int) bool {
	return v >= g.Added && (g.Removed == 0 || v < g.Removed)
}

// lockedAt reports whether the gate is locked at minor version v.
func (g *gateInfo) lockedAt(v int) bool { return g.Locked != 0 && v >= g.Locked && g.knownAt(v) }

// kubeFeatureGates: {Name, Added, Locked, LockedTo, Removed, Proxy}, sorted case-insensitively.
var kubeFeatureGates = []gateInfo{
	{"AdmissionWebhookMatchConditions", 27, 0, true, 33, false},
	{"AggregatedDiscoveryEndpoint", 26, 0, true, 33, false},
	{"AggregatedDiscoveryRemoveBetaType", 33, 35, true, 0, false},
	{"AllowDNSOnlyNodeCSR", 31, 0, true, 0, false},
	{"AllowInsecureKubeletCertificateSigningRequests", 31, 0, true, 0, false},
	{"AllowOverwriteTerminationGracePeriodSeconds", 32, 35, false, 0, false},
	{"AllowParsingUserUIDFromCertAuth", 33, 0, true, 0, false},
	{"AllowServiceExternalIPs", 36, 0, true, 0, true},
	{"AllowServiceLBStatusOnNonLB", 29, 0, true, 35, false},
	{"AllowUnsafeMalformedObjectDeletion", 32, 0, true, 0, false},
	{"AnonymousAuthConfigurableEndpoints", 31, 34, true, 0, false},
	{"AnyVolumeDataSource", 18, 33, true, 37, false},
	{"APIListChunking", 8, 29, true, 33, false},
	{"APIPriorityAndFairness", 18, 29, true, 31, false},
	{"APIResponseCompression", 7, 0, true, 0, false},
	{"APIServerIdentity", 20, 0, true, 0, false},
	{"APIServerTracing", 22, 34, true, 0, false},
	{"APIServerWebhookAuthenticationToken", 37, 0, true, 0, false},
	{"APIServingWithRoutine", 30, 0, true, 0, false},
	{"AppArmor", 4, 0, true, 33, false},
	{"AtomicFIFO", 36, 0, true, 0, false},
	{"AtomicWriteVolumeUserFields", 37, 0, true, 0, false},
	{"AuthorizeNodeWithSelectors", 31, 34, true, 0, false},
	{"AuthorizePodWebsocketUpgradeCreatePermission", 35, 0, true, 0, false},
	{"AuthorizeWithSelectors", 31, 34, true, 0, false},
	{"BtreeWatchCache", 32, 33, true, 0, false},
	{"CBORServingAndStorage", 32, 0, true, 0, false},
	{"ChangeContainerStatusOnKubeletRestart", 35, 0, true, 0, false},
	{"ClearingNominatedNodeNameAfterBinding", 34, 0, true, 0, false},
	{"ClientsAllowCBOR", 32, 0, true, 0, false},
	{"ClientsPreferCBOR", 32, 0, true, 0, false},
	{"CloudControllerManagerWatchBasedRoutesReconciliation", 35, 0, true, 0, false},
	{"CloudControllerManagerWebhook", 27, 0, true, 0, false},
	{"CloudDualStackNodeIPs", 27, 30, true, 32, false},
	{"ClusterTrustBundle", 27, 0, true, 0, false},
	{"ClusterTrustBundleProjection", 29, 0, true, 0, false},
	{"ComponentFlagz", 32, 0, true, 0, false},
	{"ComponentSLIs", 26, 32, true, 37, false},
	{"ComponentStatusz", 32, 0, true, 0, false},
	{"CompositePodGroup", 37, 0, true, 0, false},
	{"ConcurrentWatchObjectDecode", 31, 0, true, 0, false},
	{"ConsistentHTTPGetHandlers", 25, 25, true, 31, false},
	{"ConsistentListFromCache", 28, 34, true, 0, false},
	{"ConsistentListFromCacheSkipTimeoutFallback", 36, 0, true, 0, false},
	{"ConstrainedImpersonation", 35, 0, true, 0, false},
	{"ContainerCheckpoint", 25, 0, true, 0, false},
	{"ContainerRestartRules", 34, 0, true, 0, false},
	{"ContainerStopSignals", 33, 0, true, 0, false},
	{"ContextualLogging", 24, 0, true, 0, false},
	{"ControllerManagerReleaseLeaderElectionLockOnExit", 36, 0, true, 0, false},
	{"CoordinatedLeaderElection", 31, 0, true, 0, false},
	{"CPUManager", 8, 26, true, 34, false},
	{"CPUManagerPolicyAlphaOptions", 23, 0, true, 0, false},
	{"CPUManagerPolicyBetaOptions", 23, 0, true, 0, false},
	{"CPUManagerPolicyOptions", 22, 33, true, 0, false},
	{"CRDObservedGenerationTracking", 35, 0, true, 0, false},
	{"CRDValidationRatcheting", 28, 33, true, 0, false},
	{"CRIListStreaming", 36, 0, true, 0, false},
	{"CronJobsScheduledAnnotation", 28, 0, true, 36, false},
	{"CrossNamespaceVolumeDataSource", 26, 0, true, 0, false},
	{"CSIMigrationPortworx", 23, 33, true, 36, false},
	{"CSIMigrationRBD", 23, 0, true, 31, false},
	{"CSINodeExpandSecret", 25, 29, true, 31, false},
	{"CSIServiceAccountTokenSecrets", 35, 36, true, 0, false},
	{"CSIVolumeHealth", 21, 0, true, 0, false},
	{"CustomCPUCFSQuotaPeriod", 12, 0, true, 0, false},
	{"CustomResourceFieldSelectors", 30, 32, true, 0, false},
	{"CustomResourceValidationExpressions", 23, 29, true, 31, false},
	{"DeclarativeValidation", 33, 0, true, 0, false},
	{"DeclarativeValidationBeta", 36, 0, true, 0, false},
	{"DeclarativeValidationTakeover", 33, 0, true, 0, false},
	{"DefaultHostNetworkHostPortsInPodTemplates", 28, 0, true, 31, false},
	{"DefaultPodSysctls", 37, 0, true, 0, false},
	{"DeploymentReplicaSetTerminatingReplicas", 33, 0, true, 0, false},
	{"DetectCacheInconsistency", 34, 0, true, 0, false},
	{"DevicePluginCDIDevices", 28, 31, true, 34, false},
	{"DisableAllocatorDualWrite", 31, 35, true, 0, false},
	{"DisableCloudProviders", 22, 31, true, 33, false},
	{"DisableCPUQuotaWithExclusiveCPUs", 33, 0, true, 0, false},
	{"DisableKubeletCloudCredentialProviders", 23, 31, true, 33, false},
	{"DisableNodeKubeProxyVersion", 29, 0, true, 0, false},
	{"DRAAdminAccess", 32, 36, true, 0, false},
	{"DRAConsumableCapacity", 34, 0, true, 0, false},
	{"DRAControlPlaneController", 26, 0, true, 32, false},
	{"DRADerivedAttributes", 37, 0, true, 0, false},
	{"DRADeviceBindingConditions", 34, 0, true, 0, false},
	{"DRADeviceCompatibilityGroups", 37, 0, true, 0, false},
	{"DRADeviceTaintRules", 35, 0, true, 0, false},
	{"DRADeviceTaints", 33, 0, true, 0, false},
	{"DRAExtendedResource", 34, 37, true, 0, false},
	{"DRAListTypeAttributes", 36, 0, true, 0, false},
	{"DRANodeAllocatableResources", 36, 0, true, 0, false},
	{"DRAOptionalNodeOperations", 37, 0, true, 0, false},
	{"DRAPartitionableDevices", 33, 0, true, 0, false},
	{"DRAPartitionableDevicesType", 37, 0, true, 0, false},
	{"DRAPrioritizedList", 33, 37, true, 0, false},
	{"DRAResourceClaimDeviceStatus", 32, 37, true, 0, false},
	{"DRAResourceClaimGranularStatusAuthorization", 36, 0, true, 0, false},
	{"DRAResourcePoolStatus", 36, 0, true, 0, false},
	{"DRASchedulerFilterTimeout", 34, 0, true, 0, false},
	{"DRAWorkloadResourceClaims", 36, 0, true, 0, false},
	{"DynamicResourceAllocation", 26, 35, true, 0, false},
	{"EfficientWatchResumption", 20, 24, true, 36, false},
	{"ElasticIndexedJob", 27, 0, true, 36, false},
	{"EmptyDirVolumeMode", 37, 0, true, 0, false},
	{"EndpointSliceProxying", 18, 0, true, 25, true},
	{"EndpointSliceTerminatingCondition", 20, 26, true, 28, true},
	{"EnvFiles", 34, 0, true, 0, false},
	{"EtcdRangeStream", 37, 0, true, 0, false},
	{"EventedPLEG", 26, 0, true, 0, false},
	{"EvictionRequestAPI", 36, 0, true, 0, false},
	{"ExcludeAdmissionWebhookVirtualResources", 37, 0, true, 0, false},
	{"ExecProbeTimeout", 20, 35, true, 0, false},
	{"ExtendWebSocketsToKubelet", 36, 0, true, 0, false},
	{"ExternalServiceAccountTokenSigner", 32, 0, true, 0, false},
	{"GangScheduling", 35, 0, true, 37, false},
	{"GenericWorkload", 35, 0, true, 0, false},
	{"GitRepoVolumeDriver", 33, 0, true, 0, false},
	{"GracefulNodeShutdown", 20, 0, true, 0, false},
	{"GracefulNodeShutdownBasedOnPodPriority", 23, 0, true, 0, false},
	{"GRPCContainerProbeTLS", 37, 0, true, 0, false},
	{"H2CContainerProbe", 37, 0, true, 0, false},
	{"HonorPVReclaimPolicy", 23, 33, true, 37, false},
	{"HostnameOverride", 34, 37, true, 0, false},
	{"HPAConfigurableTolerance", 33, 37, true, 0, false},
	{"HPAContainerMetrics", 20, 30, true, 32, false},
	{"HPAOptimizedSelectorStore", 36, 0, true, 0, false},
	{"HPAScaleToZero", 16, 0, true, 0, false},
	{"HugepageAwareEviction", 37, 0, true, 0, false},
	{"ImageMaximumGCAge", 29, 35, true, 0, false},
	{"ImageVolume", 31, 36, true, 0, false},
	{"ImageVolumeWithDigest", 35, 0, true, 0, false},
	{"InformerResourceVersion", 30, 0, true, 0, false},
	{"InOrderInformers", 33, 0, true, 0, false},
	{"InPlacePodLevelResourcesVerticalScaling", 35, 0, true, 0, false},
	{"InPlacePodVerticalScaling", 27, 35, true, 0, false},
	{"InPlacePodVerticalScalingAllocatedStatus", 32, 0, true, 0, false},
	{"InPlacePodVerticalScalingExclusiveCPUs", 32, 0, true, 0, false},
	{"InPlacePodVerticalScalingExclusiveMemory", 34, 0, true, 0, false},
	{"InPlacePodVerticalScalingInitContainers", 36, 37, true, 0, false},
	{"InPlacePodVerticalScalingMemoryBackedVolumes", 37, 0, true, 0, false},
	{"InPlacePodVerticalScalingSchedulerPreemption", 37, 0, true, 0, false},
	{"InterPodAffinityHostnameFastPath", 36, 0, true, 0, false},
	{"InTreePluginAWSUnregister", 21, 0, true, 31, false},
	{"InTreePluginAzureDiskUnregister", 21, 0, true, 31, false},
	{"InTreePluginAzureFileUnregister", 21, 0, true, 31, false},
	{"InTreePluginGCEUnregister", 21, 0, true, 31, false},
	{"InTreePluginOpenStackUnregister", 21, 0, true, 31, false},
	{"InTreePluginPortworxUnregister", 23, 0, true, 36, false},
	{"InTreePluginRBDUnregister", 23, 0, true, 31, false},
	{"InTreePluginvSphereUnregister", 21, 0, true, 31, false},
	{"IPTablesOwnershipCleanup", 25, 0, true, 30, true},
	{"IPv6DualStack", 15, 0, true, 25, true},
	{"JobBackoffLimitPerIndex", 28, 33, true, 0, false},
	{"JobManagedBy", 30, 35, true, 0, false},
	{"JobPodFailurePolicy", 25, 31, true, 33, false},
	{"JobPodReplacementPolicy", 28, 34, true, 0, false},
	{"JobReadyPods", 23, 29, true, 31, false},
	{"JobSuccessPolicy", 30, 33, true, 0, false},
	{"KMSv1", 28, 0, true, 0, false},
	{"KMSv2", 25, 29, true, 32, false},
	{"KMSv2KDF", 28, 29, true, 32, false},
	{"KubeletCgroupDriverFromCRI", 28, 34, true, 0, false},
	{"KubeletCrashLoopBackOffMax", 32, 0, true, 0, false},
	{"KubeletEnsureSecretPulledImages", 33, 0, true, 0, false},
	{"KubeletFineGrainedAuthz", 32, 0, true, 0, false},
	{"KubeletInUserNamespace", 22, 0, true, 0, false},
	{"KubeletPodResourcesDynamicResources", 27, 0, true, 0, false},
	{"KubeletPodResourcesGet", 27, 0, true, 0, false},
	{"KubeletPodResourcesListUseActivePods", 34, 0, true, 0, false},
	{"KubeletPSI", 33, 36, true, 0, false},
	{"KubeletRegistrationGetOnExistsOnly", 32, 0, true, 0, false},
	{"KubeletSeparateDiskGC", 29, 0, true, 0, false},
	{"KubeletServiceAccountTokenForCredentialProviders", 33, 0, true, 0, false},
	{"KubeletTracing", 25, 34, true, 0, false},
	{"KubeProxyDrainingTerminatingNodes", 28, 31, true, 33, true},
	{"KubeProxyIPVS", 37, 0, true, 0, true},
	{"KubeProxyNFTablesLocalhostNodePorts", 37, 0, true, 0, true},
	{"LegacyServiceAccountTokenCleanUp", 28, 30, true, 32, false},
	{"LegacySidecarContainers", 33, 0, true, 36, false},
	{"ListFromCacheSnapshot", 33, 0, true, 0, false},
	{"LoadBalancerIPMode", 29, 32, true, 35, true},
	{"LocalStorageCapacityIsolationFSQuotaMonitoring", 15, 0, true, 0, false},
	{"LogarithmicScaleDown", 21, 31, true, 0, false},
	{"LoggingAlphaOptions", 24, 0, true, 0, false},
	{"LoggingBetaOptions", 24, 0, true, 0, false},
	{"ManifestBasedAdmissionControlConfig", 36, 0, true, 0, false},
	{"MatchLabelKeysInPodAffinity", 29, 33, true, 0, false},
	{"MatchLabelKeysInPodTopologySpread", 25, 0, true, 0, false},
	{"MatchLabelKeysInPodTopologySpreadSelectorMerge", 34, 0, true, 0, false},
	{"MaxUnavailableStatefulSet", 24, 0, true, 0, false},
	{"MemoryManager", 21, 32, true, 0, false},
	{"MemoryQoS", 22, 0, true, 0, false},
	{"MinDomainsInPodTopologySpread", 24, 30, true, 32, false},
	{"MinimizeIPTablesRestore", 26, 0, true, 30, true},
	{"MultiCIDRServiceAllocator", 27, 34, true, 0, true},
	{"MutableCSINodeAllocatableCount", 33, 36, true, 0, false},
	{"MutablePodResourcesForSuspendedJobs", 35, 0, true, 0, false},
	{"MutablePVNodeAffinity", 35, 0, true, 0, false},
	{"MutableSchedulingDirectivesForSuspendedJobs", 35, 0, true, 0, false},
	{"MutatingAdmissionPolicy", 30, 0, true, 0, false},
	{"NativeHistograms", 36, 0, true, 0, false},
	{"NewVolumeManagerReconstruction", 25, 30, true, 32, false},
	{"NFTablesNetlink", 37, 0, true, 0, true},
	{"NFTablesProxyMode", 29, 33, true, 38, true},
	{"NodeControllerLeaseCircuitBreaker", 36, 0, true, 0, false},
	{"NodeDeclaredFeatures", 35, 37, true, 0, false},
	{"NodeInclusionPolicyInPodTopologySpread", 25, 33, true, 0, false},
	{"NodeLifecycleConditions", 37, 0, true, 0, false},
	{"NodeLogQuery", 27, 36, true, 0, false},
	{"NodeOutOfServiceVolumeDetach", 24, 28, true, 32, false},
	{"NodeSwap", 22, 34, true, 0, false},
	{"NominatedNodeNameForExpectation", 34, 0, true, 0, false},
	{"OpenAPIEnums", 23, 0, true, 0, false},
	{"OpportunisticBatching", 35, 0, true, 0, false},
	{"OrderedNamespaceDeletion", 30, 34, true, 0, false},
	{"PDBUnhealthyPodEvictionPolicy", 26, 31, true, 33, false},
	{"PersistentVolumeClaimUnusedSinceTime", 36, 0, true, 0, false},
	{"PersistentVolumeLastPhaseTransitionTime", 28, 31, true, 33, false},
	{"PLEGOnDemandRelist", 36, 37, true, 0, false},
	{"PodAndContainerStatsFromCRI", 23, 0, true, 0, false},
	{"PodCertificateRequest", 34, 0, true, 0, false},
	{"PodDeletionCost", 21, 0, true, 0, false},
	{"PodDisruptionConditions", 25, 31, true, 36, false},
	{"PodGroupPreemptionPolicy", 37, 0, true, 0, false},
	{"PodHostIPs", 28, 30, true, 32, false},
	{"PodIndexLabel", 28, 0, true, 36, false},
	{"PodLevelResourceManagers", 36, 0, true, 0, false},
	{"PodLevelResources", 32, 0, true, 0, false},
	{"PodLifecycleSleepAction", 29, 34, true, 0, false},
	{"PodLifecycleSleepActionAllowZero", 32, 34, true, 0, false},
	{"PodLogsQuerySplitStreams", 32, 0, true, 0, false},
	{"PodObservedGenerationTracking", 33, 35, true, 0, false},
	{"PodReadyToStartContainersCondition", 28, 37, true, 0, false},
	{"PodsAPI", 36, 0, true, 0, false},
	{"PodSchedulingReadiness", 26, 30, true, 0, false},
	{"PodTopologyLabelsAdmission", 33, 0, true, 0, false},
	{"PortForwardWebsockets", 30, 0, true, 0, false},
	{"PreferSameTrafficDistribution", 33, 35, true, 0, true},
	{"PreventStaticPodAPIReferences", 34, 0, true, 0, false},
	{"ProcMountType", 12, 36, true, 0, false},
	{"ProxyTerminatingEndpoints", 22, 0, true, 30, true},
	{"QOSReserved", 11, 0, true, 0, false},
	{"ReadWriteOncePod", 22, 29, true, 31, false},
	{"RecoverVolumeExpansionFailure", 23, 34, true, 0, false},
	{"RecursiveReadOnlyMounts", 30, 33, true, 0, false},
	{"ReduceDefaultCrashLoopBackOffDecay", 33, 0, true, 0, false},
	{"RelaxedDNSSearchValidation", 32, 34, true, 0, false},
	{"RelaxedEnvironmentVariableValidation", 30, 34, true, 0, false},
	{"RelaxedServiceNameValidation", 34, 37, true, 0, false},
	{"ReloadKubeletServerCertificateFile", 31, 0, true, 0, false},
	{"RemainingItemCount", 15, 29, true, 33, false},
	{"RemoteRequestHeaderUID", 32, 0, true, 0, false},
	{"ResilientWatchCacheInitialization", 31, 34, true, 0, false},
	{"ResourceHealthStatus", 31, 0, true, 0, false},
	{"RestartAllContainersOnContainerExits", 35, 0, true, 0, false},
	{"RetryGenerateName", 30, 32, true, 0, false},
	{"RotateKubeletServerCertificate", 7, 0, true, 0, false},
	{"RuntimeClassInImageCriApi", 29, 0, true, 0, false},
	{"SchedulerAsyncAPICalls", 34, 0, true, 0, false},
	{"SchedulerAsyncPreemption", 32, 0, true, 0, false},
	{"SchedulerPopFromBackoffQ", 33, 0, true, 0, false},
	{"SchedulerPreQueueingHints", 36, 0, true, 0, false},
	{"SchedulerQueueingHints", 28, 34, true, 0, false},
	{"SELinuxChangePolicy", 32, 0, true, 0, false},
	{"SELinuxMount", 30, 0, true, 0, false},
	{"SELinuxMountReadWriteOncePod", 25, 0, true, 0, false},
	{"SeparateCacheWatchRPC", 28, 0, true, 0, false},
	{"SeparateTaintEvictionController", 29, 34, true, 0, false},
	{"ServerSideApply", 14, 22, true, 32, false},
	{"ServerSideFieldValidation", 23, 27, true, 32, false},
	{"ServiceAccountNodeAudienceRestriction", 32, 0, true, 0, false},
	{"ServiceAccountTokenJTI", 29, 32, true, 0, false},
	{"ServiceAccountTokenNodeBinding", 29, 33, true, 0, false},
	{"ServiceAccountTokenNodeBindingValidation", 29, 32, true, 0, false},
	{"ServiceAccountTokenPodNodeInfo", 29, 32, true, 0, false},
	{"ServiceInternalTrafficPolicy", 21, 0, true, 28, true},
	{"ServiceNodePortStaticSubrange", 27, 29, true, 31, false},
	{"ServiceTopology", 17, 0, true, 23, true},
	{"ServiceTrafficDistribution", 30, 33, true, 0, true},
	{"ShardedListAndWatch", 36, 0, true, 0, false},
	{"SidecarContainers", 28, 33, true, 0, false},
	{"SizeBasedListCostEstimate", 34, 0, true, 0, false},
	{"SizeMemoryBackedVolumes", 20, 32, true, 36, false},
	{"SkipReadOnlyValidationGCE", 28, 0, true, 31, false},
	{"StableLoadBalancerNodeSet", 27, 30, true, 32, false},
	{"StaleControllerConsistencyDaemonSet", 36, 0, true, 0, false},
	{"StaleControllerConsistencyHPA", 36, 0, true, 0, false},
	{"StaleControllerConsistencyJob", 36, 0, true, 0, false},
	{"StaleControllerConsistencyReplicaSet", 36, 0, true, 0, false},
	{"StaleControllerConsistencyStatefulSet", 36, 0, true, 0, false},
	{"StatefulSetAutoDeletePVC", 23, 0, true, 36, false},
	{"StatefulSetRecreateStrategy", 37, 0, true, 0, false},
	{"StatefulSetSemanticRevisionComparison", 34, 0, true, 0, false},
	{"StatefulSetStartOrdinal", 26, 0, true, 36, false},
	{"StorageCapacityScoring", 33, 0, true, 0, false},
	{"StorageNamespaceIndex", 30, 0, true, 0, false},
	{"StorageVersionAPI", 20, 0, true, 0, false},
	{"StorageVersionHash", 14, 0, true, 0, false},
	{"StorageVersionMigrator", 30, 0, true, 0, false},
	{"StreamingCollectionEncodingToJSON", 33, 34, true, 0, false},
	{"StreamingCollectionEncodingToProtobuf", 33, 34, true, 0, false},
	{"StrictCostEnforcementForVAP", 30, 32, true, 35, false},
	{"StrictCostEnforcementForWebhooks", 31, 32, true, 35, false},
	{"StrictIPCIDRValidation", 33, 0, true, 0, false},
	{"StructuredAuthenticationConfiguration", 29, 34, true, 0, false},
	{"StructuredAuthenticationConfigurationEgressSelector", 34, 0, true, 0, false},
	{"StructuredAuthenticationConfigurationJWKSMetrics", 35, 0, true, 0, false},
	{"StructuredAuthorizationConfiguration", 29, 32, true, 0, false},
	{"SupplementalGroupsPolicy", 31, 35, true, 0, false},
	{"SystemdWatchdog", 32, 35, true, 0, false},
	{"TaintTolerationComparisonOperators", 35, 0, true, 0, false},
	{"TokenRequestServiceAccountUIDValidation", 34, 0, true, 0, false},
	{"TopologyAwareHints", 21, 33, true, 0, true},
	{"TopologyAwareWorkloadScheduling", 36, 0, true, 0, false},
	{"TopologyManagerPolicyAlphaOptions", 26, 0, true, 0, false},
	{"TopologyManagerPolicyBetaOptions", 26, 0, true, 0, false},
	{"TopologyManagerPolicyOptions", 26, 0, true, 0, false},
	{"TranslateStreamCloseWebsocketRequests", 29, 0, true, 0, false},
	{"UnauthenticatedHTTP2DOSMitigation", 25, 0, true, 0, false},
	{"UnknownVersionInteroperabilityProxy", 28, 0, true, 0, false},
	{"UnlockWhileProcessingFIFO", 36, 0, true, 0, false},
	{"UserNamespacesHostNetworkSupport", 35, 0, true, 0, false},
	{"UserNamespacesPodSecurityStandards", 29, 0, true, 35, false},
	{"UserNamespacesSupport", 25, 36, true, 0, false},
	{"ValidatingAdmissionPolicy", 26, 0, true, 32, false},
	{"VolumeAttributesClass", 29, 36, true, 0, false},
	{"VolumeBindMountOptions", 37, 0, true, 0, false},
	{"VolumeCapacityPriority", 21, 0, true, 33, false},
	{"VolumeLimitScaling", 35, 0, true, 0, false},
	{"WatchBookmark", 15, 17, true, 33, false},
	{"WatchCacheInitializationPostStartHook", 31, 37, true, 0, false},
	{"WatchFromStorageWithoutResourceVersion", 27, 33, false, 0, false},
	{"WatchList", 27, 0, true, 0, false},
	{"WatchListClient", 30, 0, true, 0, false},
	{"WatchListCompression", 36, 0, true, 0, false},
	{"WindowsCPUAndMemoryAffinity", 32, 0, true, 0, false},
	{"WindowsEndpointSliceProxying", 19, 0, true, 25, true},
	{"WindowsGracefulNodeShutdown", 32, 0, true, 0, false},
	{"WindowsHostNetwork", 26, 0, true, 0, false},
	{"WinDSR", 14, 34, true, 0, true},
	{"WinOverlay", 14, 34, true, 0, true},
	{"WorkloadAwarePreemption", 36, 0, true, 37, false},
	{"WorkloadWithJob", 36, 0, true, 0, false},
	{"ZeroLimitedNominalConcurrencyShares", 29, 30, true, 32, false},
}

var gateIndex = func() map[string]*gateInfo {
	m := make(map[string]*gateInfo, len(kubeFeatureGates))
	for i := range kubeFeatureGates {
		m[kubeFeatureGates[i].Name] = &kubeFeatureGates[i]
	}
	return m
}()

// lookupGate returns the table entry of gate name (case-sensitive, as kube-proxy matches it).
func lookupGate(name string) (*gateInfo, bool) {
	g, ok := gateIndex[name]
	return g, ok
}

// suggestGate returns the gate closest to name (case-insensitive edit distance) among the gates
// for which keep returns true, or "" when none is close enough to be a likely typo.
func suggestGate(name string, keep func(*gateInfo) bool) string {
	lname := strings.ToLower(name)
	limit := min(max(len(name)/5, 1), 3)
	n := utf8.RuneCountInString(lname)
	lower := lowerGateNames()
	best, bestD := "", -1
	for i := range kubeFeatureGates {
		g := &kubeFeatureGates[i]
		if g.Name == name || !keep(g) {
			continue
		}
		if m := utf8.RuneCountInString(lower[i]); m-n > limit || n-m > limit {
			// Farther than the limit whatever the letters: never the suggestion.
			continue
		}
		d := checker.EditDistance(lname, lower[i])
		if bestD < 0 || d < bestD {
			best, bestD = g.Name, d
		}
	}
	if bestD < 0 || bestD > limit {
		return ""
	}
	return best
}

// lowerGateNames are the names of kubeFeatureGates in lower case, in the same order.
var lowerGateNames = sync.OnceValue(func() []string {
	out := make([]string, len(kubeFeatureGates))
	for i, g := range kubeFeatureGates {
		out[i] = strings.ToLower(g.Name)
	}
	return out
})
