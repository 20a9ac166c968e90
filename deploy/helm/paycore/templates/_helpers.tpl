{{/* The chart's name, at most 63 characters. */}}
{{- define "paycore.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: the prefix of every object's name. */}}
{{- define "paycore.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "paycore.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "paycore.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: paycore
{{- end }}

{{/* Selector labels of one component (api, worker, migrate): pass (list $ "api"). */}}
{{- define "paycore.selectorLabels" -}}
{{- $ := index . 0 -}}
app.kubernetes.io/name: {{ include "paycore.name" $ }}
app.kubernetes.io/instance: {{ $.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{- define "paycore.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "paycore.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "paycore.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The Secret holding the database URL and the master key. */}}
{{- define "paycore.secretName" -}}
{{- default (printf "%s-secrets" (include "paycore.fullname" .)) .Values.secrets.existingSecret }}
{{- end }}

{{/* The secret variables, from the Secret. */}}
{{- define "paycore.secretEnv" -}}
- name: PAYCORE_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "paycore.secretName" . }}
      key: {{ .Values.secrets.databaseURLKey }}
- name: PAYCORE_MASTER_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "paycore.secretName" . }}
      key: {{ .Values.secrets.masterKeyKey }}
{{- end }}

{{/* The container's environment: the ConfigMap, envFrom extras, the Secret and env extras. */}}
{{- define "paycore.envFrom" -}}
- configMapRef:
    name: {{ include "paycore.fullname" . }}
{{- with .Values.envFrom }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "paycore.env" -}}
{{ include "paycore.secretEnv" . }}
{{- range $name, $value := .Values.env }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end }}

{{/* Pod-level fields shared by the API and the worker. */}}
{{- define "paycore.podCommon" -}}
serviceAccountName: {{ include "paycore.serviceAccountName" . }}
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end }}

{{/* Where the Temporal TLS files and the API key are mounted. */}}
{{- define "paycore.temporalTLSDir" -}}/etc/paycore/temporal-tls{{- end }}
{{- define "paycore.temporalAPIKeyDir" -}}/etc/paycore/temporal-api-key{{- end }}

{{/* The PAYCORE_TEMPORAL_TLS* and _API_KEY_FILE settings (ConfigMap entries). */}}
{{- define "paycore.temporalSecurityEnv" -}}
{{- $t := .Values.temporal.tls }}
{{- if or $t.enabled $t.existingSecret $t.serverName .Values.temporal.apiKey.existingSecret }}
PAYCORE_TEMPORAL_TLS: "true"
{{- end }}
{{- with $t.serverName }}
PAYCORE_TEMPORAL_TLS_SERVER_NAME: {{ . | quote }}
{{- end }}
{{- if $t.existingSecret }}
{{- if $t.caKey }}
PAYCORE_TEMPORAL_TLS_CA_FILE: {{ printf "%s/%s" (include "paycore.temporalTLSDir" .) $t.caKey | quote }}
{{- end }}
{{- if and $t.certKey $t.keyKey }}
PAYCORE_TEMPORAL_TLS_CERT_FILE: {{ printf "%s/%s" (include "paycore.temporalTLSDir" .) $t.certKey | quote }}
PAYCORE_TEMPORAL_TLS_KEY_FILE: {{ printf "%s/%s" (include "paycore.temporalTLSDir" .) $t.keyKey | quote }}
{{- end }}
{{- end }}
{{- with .Values.temporal.apiKey.existingSecret }}
PAYCORE_TEMPORAL_API_KEY_FILE: {{ printf "%s/%s" (include "paycore.temporalAPIKeyDir" $) $.Values.temporal.apiKey.key | quote }}
{{- end }}
{{- end }}

{{/* Volumes of the API and the worker: a writable /tmp and the documents folder. */}}
{{- define "paycore.volumes" -}}
- name: tmp
  emptyDir: {}
- name: documents
  {{- if .Values.documents.existingClaim }}
  persistentVolumeClaim:
    claimName: {{ .Values.documents.existingClaim }}
  {{- else }}
  emptyDir: {}
  {{- end }}
{{- include "paycore.temporalVolumes" . }}
{{- end }}

{{/* The Secrets of the Temporal TLS files and the API key, as volumes. */}}
{{- define "paycore.temporalVolumes" -}}
{{- $t := .Values.temporal.tls }}
{{- if $t.existingSecret }}
- name: temporal-tls
  secret:
    secretName: {{ $t.existingSecret }}
    defaultMode: 0440
    items:
      {{- range (list $t.caKey $t.certKey $t.keyKey) }}
      {{- if . }}
      - {key: {{ . }}, path: {{ . }}}
      {{- end }}
      {{- end }}
{{- end }}
{{- with .Values.temporal.apiKey.existingSecret }}
- name: temporal-api-key
  secret:
    secretName: {{ . }}
    defaultMode: 0440
    items:
      - {key: {{ $.Values.temporal.apiKey.key }}, path: {{ $.Values.temporal.apiKey.key }}}
{{- end }}
{{- end }}

{{- define "paycore.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
- name: documents
  mountPath: /var/lib/paycore/documents
{{- if .Values.temporal.tls.existingSecret }}
- name: temporal-tls
  mountPath: {{ include "paycore.temporalTLSDir" . }}
  readOnly: true
{{- end }}
{{- if .Values.temporal.apiKey.existingSecret }}
- name: temporal-api-key
  mountPath: {{ include "paycore.temporalAPIKeyDir" . }}
  readOnly: true
{{- end }}
{{- end }}

{{/* Spread a component's pods over nodes: pass (list $ "api" .Values.api). */}}
{{- define "paycore.scheduling" -}}
{{- $ := index . 0 }}
{{- $c := index . 2 }}
{{- if $c.topologySpread }}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "paycore.selectorLabels" (list $ (index . 1)) | nindent 8 }}
{{- end }}
{{- with $c.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $c.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $c.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
