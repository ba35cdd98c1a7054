{{- /*
  What every Canopy pod shares, the services' Deployments and the migrations Job alike, so that a
  migration runs with exactly the configuration its service will start with.
*/ -}}

{{- define "canopy.labels" -}}
app.kubernetes.io/name: canopy
app.kubernetes.io/component: {{ . }}
{{- end }}

{{- /* A service's autoscaling as JSON, (dict "Values" $.Values "svc" $svc): the chart-wide settings
       with the service's own on top. */ -}}
{{- define "canopy.autoscaling" -}}
{{- $autoscaling := deepCopy .Values.autoscaling }}
{{- /* `set`, not mergeOverwrite: that one skips false, so `enabled: false` could not override. */}}
{{- range $key, $value := .svc.autoscaling | default dict }}
{{- $_ := set $autoscaling $key $value }}
{{- end }}
{{- toJson $autoscaling }}
{{- end }}

{{- /*
  Hardening no value can turn off: no root, no privilege escalation, no Linux capabilities, the
  runtime's default seccomp filter. runAs.user is needed because the image's USER is a name (node),
  which the kubelet cannot check against runAsNonRoot; null leaves it to the platform (OpenShift
  assigns one).
*/ -}}
{{- define "canopy.podSecurityContext" -}}
runAsNonRoot: true
{{- with .Values.runAs.user }}
runAsUser: {{ . }}
{{- end }}
{{- with .Values.runAs.group }}
runAsGroup: {{ . }}
{{- end }}
seccompProfile: { type: RuntimeDefault }
{{- end }}

{{- define "canopy.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities: { drop: [ALL] }
{{- end }}

{{- /*
  The root filesystem is read-only; Node and its libraries may still want a scratch directory
  (os.tmpdir()), so /tmp is a small emptyDir.
*/ -}}
{{- define "canopy.tmpVolume" -}}
- name: tmp
  emptyDir: { sizeLimit: {{ .Values.tmpSizeLimit }} }
{{- end }}

{{- /*
  The container's env list, called with (dict "Values" $.Values "name" $name "svc" $svc): `$.Values`
  reads inside it as it does in the templates.
*/ -}}
{{- define "canopy.env" -}}
{{- $name := .name }}
{{- $svc := .svc }}
{{- /* The URL holds the database password: from a Secret's key when one is named. */}}
{{- if $.Values.databaseUrlSecret.name }}
- name: CANOPY_DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ $.Values.databaseUrlSecret.name | quote }}, key: {{ $.Values.databaseUrlSecret.key | quote }} } }
{{- else }}
- { name: CANOPY_DATABASE_URL, value: {{ $.Values.databaseUrl | quote }} }
{{- end }}
- { name: CANOPY_REDIS_URL, value: {{ $.Values.redisUrl | quote }} }
- { name: CANOPY_NATS_URL, value: {{ $.Values.natsUrl | quote }} }
- { name: CANOPY_EVENT_STREAM, value: {{ $.Values.eventStream | quote }} }
- { name: CANOPY_EXTERNAL_URL, value: {{ $.Values.externalUrl | quote }} }
- { name: CANOPY_HEALTH_PORT, value: {{ $.Values.healthPort | quote }} }
- { name: CANOPY_HEALTH_HOST, value: {{ $.Values.bind.healthHost | quote }} }
- { name: CANOPY_GRPC_HOST, value: {{ $.Values.bind.grpcHost | quote }} }
{{- if $svc.http }}
- { name: {{ $svc.http.portVariable }}, value: {{ $svc.http.port | quote }} }
{{- end }}
{{- if $svc.grpc }}
- { name: {{ $svc.grpc.portVariable }}, value: {{ $svc.grpc.port | quote }} }
{{- end }}
{{- /* Every gRPC service by its headless Service's DNS name: one record per ready pod, which the
       kit's client balances round-robin (a ClusterIP would pin each client's single HTTP/2
       connection to one pod). */}}
{{- range $other, $o := $.Values.services }}
{{- if $o.grpc }}
- { name: {{ $o.grpc.addressVariable }}, value: "dns:///canopy-{{ $other }}:{{ $o.grpc.port }}" }
{{- end }}
{{- end }}
{{- /* The gateway's call-signing key pair (README, "Only the gateway calls services"): the private
       half only to the processes that may call gRPC, the public half only to the gRPC services,
       so a service that is broken into cannot sign calls to the others. */}}
{{- with $.Values.callKeys }}
{{- if has $name $.Values.networkPolicy.grpcClients }}
- name: CANOPY_GATEWAY_SIGNING_KEY
  valueFrom: { secretKeyRef: { name: {{ .secretName | quote }}, key: {{ .signingKey | quote }} } }
{{- end }}
{{- if $svc.grpc }}
- name: CANOPY_GATEWAY_VERIFY_KEY
  valueFrom: { secretKeyRef: { name: {{ .secretName | quote }}, key: {{ .verifyKey | quote }} } }
{{- end }}
{{- end }}
{{- /* From a Secret's key, never a value: the JSON holds bind passwords. Only the processes
       that read it get it. */}}
{{- with $.Values.ldap.serversSecret }}
{{- if and .name (has $name $.Values.ldap.services) }}
- name: CANOPY_LDAP_SERVERS
  valueFrom: { secretKeyRef: { name: {{ .name | quote }}, key: {{ .key | quote }} } }
{{- end }}
{{- end }}
{{- end }}
