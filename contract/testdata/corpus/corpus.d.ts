declare namespace CodemodeTypes {
  interface Issue {
    id?: number;
    number?: number;
    state?: string;
    state_reason?: string;
    locked?: boolean;
    title?: string;
    body?: string;
    author_association?: string;
    user?: CodemodeTypes.User;
    labels?: CodemodeTypes.Label[];
    assignee?: CodemodeTypes.User;
    comments?: number;
    /** @format date-time */
    closed_at?: string;
    /** @format date-time */
    created_at?: string;
    /** @format date-time */
    updated_at?: string;
    closed_by?: CodemodeTypes.User;
    url?: string;
    html_url?: string;
    comments_url?: string;
    events_url?: string;
    labels_url?: string;
    repository_url?: string;
    milestone?: CodemodeTypes.Milestone;
    pull_request?: CodemodeTypes.PullRequestLinks;
    repository?: CodemodeTypes.Repository;
    reactions?: CodemodeTypes.Reactions;
    assignees?: CodemodeTypes.User[];
    node_id?: string;
    draft?: boolean;
    type?: CodemodeTypes.IssueType;
    text_matches?: CodemodeTypes.TextMatch[];
    active_lock_reason?: string;
  }

  interface Repository {
    id?: number;
    node_id?: string;
    owner?: CodemodeTypes.User;
    name?: string;
    full_name?: string;
    description?: string;
    homepage?: string;
    code_of_conduct?: CodemodeTypes.CodeOfConduct;
    default_branch?: string;
    master_branch?: string;
    /** @format date-time */
    created_at?: string;
    /** @format date-time */
    pushed_at?: string;
    /** @format date-time */
    updated_at?: string;
    html_url?: string;
    clone_url?: string;
    git_url?: string;
    mirror_url?: string;
    ssh_url?: string;
    svn_url?: string;
    language?: string;
    fork?: boolean;
    forks_count?: number;
    network_count?: number;
    open_issues_count?: number;
    open_issues?: number;
    stargazers_count?: number;
    subscribers_count?: number;
    watchers_count?: number;
    watchers?: number;
    size?: number;
    auto_init?: boolean;
    parent?: CodemodeTypes.Repository;
    source?: CodemodeTypes.Repository;
    template_repository?: CodemodeTypes.Repository;
    organization?: CodemodeTypes.Organization;
    permissions?: Record<string, boolean>;
    allow_rebase_merge?: boolean;
    allow_update_branch?: boolean;
    allow_squash_merge?: boolean;
    allow_merge_commit?: boolean;
    allow_auto_merge?: boolean;
    allow_forking?: boolean;
    web_commit_signoff_required?: boolean;
    delete_branch_on_merge?: boolean;
    use_squash_pr_title_as_default?: boolean;
    squash_merge_commit_title?: string;
    squash_merge_commit_message?: string;
    merge_commit_title?: string;
    merge_commit_message?: string;
    topics?: string[];
    custom_properties?: Record<string, unknown>;
    archived?: boolean;
    disabled?: boolean;
    license?: CodemodeTypes.License;
    private?: boolean;
    has_issues?: boolean;
    has_wiki?: boolean;
    has_pages?: boolean;
    has_projects?: boolean;
    has_downloads?: boolean;
    has_discussions?: boolean;
    is_template?: boolean;
    license_template?: string;
    gitignore_template?: string;
    security_and_analysis?: CodemodeTypes.SecurityAndAnalysis;
    team_id?: number;
    url?: string;
    archive_url?: string;
    assignees_url?: string;
    blobs_url?: string;
    branches_url?: string;
    collaborators_url?: string;
    comments_url?: string;
    commits_url?: string;
    compare_url?: string;
    contents_url?: string;
    contributors_url?: string;
    deployments_url?: string;
    downloads_url?: string;
    events_url?: string;
    forks_url?: string;
    git_commits_url?: string;
    git_refs_url?: string;
    git_tags_url?: string;
    hooks_url?: string;
    issue_comment_url?: string;
    issue_events_url?: string;
    issues_url?: string;
    keys_url?: string;
    labels_url?: string;
    languages_url?: string;
    merges_url?: string;
    milestones_url?: string;
    notifications_url?: string;
    pulls_url?: string;
    releases_url?: string;
    stargazers_url?: string;
    statuses_url?: string;
    subscribers_url?: string;
    subscription_url?: string;
    tags_url?: string;
    trees_url?: string;
    teams_url?: string;
    text_matches?: CodemodeTypes.TextMatch[];
    visibility?: string;
    role_name?: string;
  }

  interface Deployment {
    kind?: string;
    apiVersion?: string;
    metadata: CodemodeTypes.ObjectMeta;
    spec: CodemodeTypes.DeploymentSpec;
    status: CodemodeTypes.DeploymentStatus;
  }

  interface Charge {
    id: string;
    object: string;
    amount: number;
    amount_refunded: number;
    currency: string;
    created: number;
    livemode: boolean;
    paid: boolean;
    status: string;
    description: string | null;
    customer: unknown;
    balance_transaction: unknown;
    invoice: unknown;
    metadata: Record<string, string>;
    outcome: CodemodeTypes.ChargeOutcome | null;
    refunds: CodemodeTypes.RefundList | null;
    billing_details: CodemodeTypes.BillingDetails;
    payment_method_details: Record<string, unknown>;
  }

  interface Category {
    name: string;
    children: CodemodeTypes.Category[];
  }

  interface User2 {
    id: number;
    tags: string[];
    nickname: string | null;
  }

  interface User {
    login?: string;
    id?: number;
    node_id?: string;
    avatar_url?: string;
    html_url?: string;
    gravatar_id?: string;
    name?: string;
    company?: string;
    blog?: string;
    location?: string;
    email?: string;
    hireable?: boolean;
    bio?: string;
    twitter_username?: string;
    public_repos?: number;
    public_gists?: number;
    followers?: number;
    following?: number;
    /** @format date-time */
    created_at?: string;
    /** @format date-time */
    updated_at?: string;
    /** @format date-time */
    suspended_at?: string;
    type?: string;
    site_admin?: boolean;
    total_private_repos?: number;
    owned_private_repos?: number;
    private_gists?: number;
    disk_usage?: number;
    collaborators?: number;
    two_factor_authentication?: boolean;
    plan?: CodemodeTypes.Plan;
    ldap_dn?: string;
    url?: string;
    events_url?: string;
    following_url?: string;
    followers_url?: string;
    gists_url?: string;
    organizations_url?: string;
    received_events_url?: string;
    repos_url?: string;
    starred_url?: string;
    subscriptions_url?: string;
    text_matches?: CodemodeTypes.TextMatch[];
    permissions?: Record<string, boolean>;
    role_name?: string;
    assignment?: string;
    inherited_from?: CodemodeTypes.Team[];
  }

  interface Label {
    id?: number;
    url?: string;
    name?: string;
    color?: string;
    description?: string;
    default?: boolean;
    node_id?: string;
  }

  interface Milestone {
    url?: string;
    html_url?: string;
    labels_url?: string;
    id?: number;
    number?: number;
    state?: string;
    title?: string;
    description?: string;
    creator?: CodemodeTypes.User;
    open_issues?: number;
    closed_issues?: number;
    /** @format date-time */
    created_at?: string;
    /** @format date-time */
    updated_at?: string;
    /** @format date-time */
    closed_at?: string;
    /** @format date-time */
    due_on?: string;
    node_id?: string;
  }

  interface PullRequestLinks {
    url?: string;
    html_url?: string;
    diff_url?: string;
    patch_url?: string;
    /** @format date-time */
    merged_at?: string;
  }

  interface Reactions {
    total_count?: number;
    "+1"?: number;
    "-1"?: number;
    laugh?: number;
    confused?: number;
    heart?: number;
    hooray?: number;
    rocket?: number;
    eyes?: number;
    url?: string;
  }

  interface IssueType {
    id?: number;
    node_id?: string;
    name?: string;
    description?: string;
    color?: string;
    /** @format date-time */
    created_at?: string;
    /** @format date-time */
    updated_at?: string;
  }

  interface TextMatch {
    object_url?: string;
    object_type?: string;
    property?: string;
    fragment?: string;
    matches?: CodemodeTypes.Match[];
  }

  interface CodeOfConduct {
    name?: string;
    key?: string;
    url?: string;
    body?: string;
  }

  interface Organization {
    login?: string;
    id?: number;
    node_id?: string;
    avatar_url?: string;
    html_url?: string;
    name?: string;
    company?: string;
    blog?: string;
    location?: string;
    email?: string;
    twitter_username?: string;
    description?: string;
    public_repos?: number;
    public_gists?: number;
    followers?: number;
    following?: number;
    /** @format date-time */
    created_at?: string;
    /** @format date-time */
    updated_at?: string;
    total_private_repos?: number;
    owned_private_repos?: number;
    private_gists?: number;
    disk_usage?: number;
    collaborators?: number;
    billing_email?: string;
    type?: string;
    plan?: CodemodeTypes.Plan;
    two_factor_requirement_enabled?: boolean;
    is_verified?: boolean;
    has_organization_projects?: boolean;
    has_repository_projects?: boolean;
    default_repository_permission?: string;
    default_repository_settings?: string;
    members_can_create_repositories?: boolean;
    members_can_create_public_repositories?: boolean;
    members_can_create_private_repositories?: boolean;
    members_can_create_internal_repositories?: boolean;
    members_can_fork_private_repositories?: boolean;
    members_allowed_repository_creation_type?: string;
    members_can_create_pages?: boolean;
    members_can_create_public_pages?: boolean;
    members_can_create_private_pages?: boolean;
    web_commit_signoff_required?: boolean;
    advanced_security_enabled_for_new_repositories?: boolean;
    dependabot_alerts_enabled_for_new_repositories?: boolean;
    dependabot_security_updates_enabled_for_new_repositories?: boolean;
    dependency_graph_enabled_for_new_repositories?: boolean;
    secret_scanning_enabled_for_new_repositories?: boolean;
    secret_scanning_push_protection_enabled_for_new_repositories?: boolean;
    secret_scanning_validity_checks_enabled?: boolean;
    members_can_delete_repositories?: boolean;
    members_can_change_repo_visiblilty?: boolean;
    members_can_invite_outside_collaborators?: boolean;
    members_can_delete_issues?: boolean;
    display_commenter_full_name_setting_enabled?: boolean;
    readers_can_create_discussions?: boolean;
    members_can_create_teams?: boolean;
    members_can_view_dependency_insights?: boolean;
    default_repository_branch?: string;
    url?: string;
    events_url?: string;
    hooks_url?: string;
    issues_url?: string;
    members_url?: string;
    public_members_url?: string;
    repos_url?: string;
  }

  interface License {
    key?: string;
    name?: string;
    url?: string;
    spdx_id?: string;
    html_url?: string;
    featured?: boolean;
    description?: string;
    implementation?: string;
    permissions?: string[];
    conditions?: string[];
    limitations?: string[];
    body?: string;
  }

  interface SecurityAndAnalysis {
    advanced_security?: CodemodeTypes.AdvancedSecurity;
    secret_scanning?: CodemodeTypes.SecretScanning;
    secret_scanning_push_protection?: CodemodeTypes.SecretScanningPushProtection;
    dependabot_security_updates?: CodemodeTypes.DependabotSecurityUpdates;
    secret_scanning_validity_checks?: CodemodeTypes.SecretScanningValidityChecks;
  }

  interface ObjectMeta {
    name?: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    /** @format date-time */
    creationTimestamp: string | null;
    /** @format date-time */
    deletionTimestamp?: string | null;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: CodemodeTypes.OwnerReference[];
    finalizers?: string[];
  }

  interface DeploymentSpec {
    /**
     * @minimum -2147483648
     * @maximum 2147483647
     */
    replicas?: number;
    selector: CodemodeTypes.LabelSelector | null;
    template: CodemodeTypes.PodTemplateSpec;
    strategy: CodemodeTypes.DeploymentStrategy;
  }

  interface DeploymentStatus {
    observedGeneration?: number;
    /**
     * @minimum -2147483648
     * @maximum 2147483647
     */
    replicas?: number;
    /**
     * @minimum -2147483648
     * @maximum 2147483647
     */
    readyReplicas?: number;
    conditions?: CodemodeTypes.DeploymentCondition[];
  }

  interface ChargeOutcome {
    network_status: string;
    risk_level: string;
    risk_score?: number;
    rule: unknown;
    seller_message: string | null;
    type: string;
  }

  interface RefundList {
    object: string;
    data: CodemodeTypes.Refund[];
    has_more: boolean;
    url: string;
  }

  interface BillingDetails {
    address: CodemodeTypes.Address | null;
    email: string | null;
    name: string | null;
  }

  interface Plan {
    name?: string;
    space?: number;
    collaborators?: number;
    private_repos?: number;
    filled_seats?: number;
    seats?: number;
  }

  interface Team {
    id?: number;
    node_id?: string;
    name?: string;
    description?: string;
    url?: string;
    slug?: string;
    permission?: string;
    privacy?: string;
    notification_setting?: string;
    members_count?: number;
    repos_count?: number;
    organization?: CodemodeTypes.Organization;
    html_url?: string;
    members_url?: string;
    repositories_url?: string;
    parent?: CodemodeTypes.Team;
    ldap_dn?: string;
    permissions?: Record<string, boolean>;
    assignment?: string;
  }

  interface Match {
    text?: string;
    indices?: number[];
  }

  interface AdvancedSecurity {
    status?: string;
  }

  interface SecretScanning {
    status?: string;
  }

  interface SecretScanningPushProtection {
    status?: string;
  }

  interface DependabotSecurityUpdates {
    status?: string;
  }

  interface SecretScanningValidityChecks {
    status?: string;
  }

  interface OwnerReference {
    apiVersion: string;
    kind: string;
    name: string;
    controller?: boolean;
  }

  interface LabelSelector {
    matchLabels?: Record<string, string>;
    matchExpressions?: CodemodeTypes.LabelSelectorRequirement[];
  }

  interface PodTemplateSpec {
    metadata: CodemodeTypes.ObjectMeta;
    spec: CodemodeTypes.PodSpec;
  }

  interface DeploymentStrategy {
    type?: string;
    rollingUpdate?: CodemodeTypes.RollingUpdateDeployment;
  }

  interface DeploymentCondition {
    type: string;
    status: string;
    /** @format date-time */
    lastUpdateTime: string | null;
    /** @format date-time */
    lastTransitionTime: string | null;
    reason?: string;
    message?: string;
  }

  interface Refund {
    id: string;
    amount: number;
    charge: unknown;
    metadata: Record<string, string>;
    reason: string | null;
  }

  interface Address {
    city: string | null;
    country: string | null;
    line1: string | null;
    postal_code: string | null;
  }

  interface LabelSelectorRequirement {
    key: string;
    operator: string;
    values?: string[];
  }

  interface PodSpec {
    containers: CodemodeTypes.Container[];
    nodeSelector?: Record<string, string>;
  }

  interface RollingUpdateDeployment {
    maxUnavailable?: unknown;
    maxSurge?: unknown;
  }

  interface Container {
    name: string;
    image?: string;
    args?: string[];
    env?: CodemodeTypes.EnvVar[];
    ports?: CodemodeTypes.ContainerPort[];
    resources: CodemodeTypes.ResourceRequirements;
  }

  interface EnvVar {
    name: string;
    value?: string;
  }

  interface ContainerPort {
    name?: string;
    /**
     * @minimum -2147483648
     * @maximum 2147483647
     */
    containerPort: number;
    protocol?: string;
  }

  interface ResourceRequirements {
    limits?: Record<string, unknown>;
    requests?: Record<string, unknown>;
  }
}

interface Tools {
  /** Returns the Issue value at index. */
  getIssue(input: {
    index: number;
  }): Promise<CodemodeTypes.Issue | null>;

  /** Takes a Issue back. */
  putIssue(input: {
    index: number;
    value: CodemodeTypes.Issue | null;
  }): Promise<boolean>;

  /** Returns the Repository value at index. */
  getRepository(input: {
    index: number;
  }): Promise<CodemodeTypes.Repository | null>;

  /** Takes a Repository back. */
  putRepository(input: {
    index: number;
    value: CodemodeTypes.Repository | null;
  }): Promise<boolean>;

  /** Returns the Issues value at index. */
  getIssues(input: {
    index: number;
  }): Promise<CodemodeTypes.Issue[]>;

  /** Takes a Issues back. */
  putIssues(input: {
    index: number;
    value: CodemodeTypes.Issue[];
  }): Promise<boolean>;

  /** Returns the Deployment value at index. */
  getDeployment(input: {
    index: number;
  }): Promise<CodemodeTypes.Deployment | null>;

  /** Takes a Deployment back. */
  putDeployment(input: {
    index: number;
    value: CodemodeTypes.Deployment | null;
  }): Promise<boolean>;

  /** Returns the Charge value at index. */
  getCharge(input: {
    index: number;
  }): Promise<CodemodeTypes.Charge | null>;

  /** Takes a Charge back. */
  putCharge(input: {
    index: number;
    value: CodemodeTypes.Charge | null;
  }): Promise<boolean>;

  /** Returns the Counts value at index. */
  getCounts(input: {
    index: number;
  }): Promise<Record<string, number>>;

  /** Takes a Counts back. */
  putCounts(input: {
    index: number;
    value: Record<string, number>;
  }): Promise<boolean>;

  /** Returns the Anything value at index. */
  getAnything(input: {
    index: number;
  }): Promise<unknown>;

  /** Takes a Anything back. */
  putAnything(input: {
    index: number;
    value: unknown;
  }): Promise<boolean>;

  /** Returns the Category value at index. */
  getCategory(input: {
    index: number;
  }): Promise<CodemodeTypes.Category | null>;

  /** Takes a Category back. */
  putCategory(input: {
    index: number;
    value: CodemodeTypes.Category | null;
  }): Promise<boolean>;

  /** Returns the User value at index. */
  getUser(input: {
    index: number;
  }): Promise<CodemodeTypes.User2>;

  /** Takes a User back. */
  putUser(input: {
    index: number;
    value: CodemodeTypes.User2;
  }): Promise<boolean>;

  /**
   * Searches the tools (and saved programs, where there are any); at most 50
   * results, best first. Returns paths, not schemas: pass one to describe for
   * its declarations.
   */
  search(query: string): Promise<SearchOutput>;

  /** TypeScript declarations of a namespace, a namespace.tool or a saved program's name. */
  describe(target: string): Promise<DescribeOutput>;

  /**
   * Runs fn and returns its value. Wrap work that is not a tool call and may
   * give another value each time it runs (Date.now(), Math.random(), fetch):
   * where executions are recorded, its value is recorded and, when the
   * execution runs again, returned without running fn.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
}

type SearchResult = {
  path: string;
  connector: string;
  method: string;
  description?: string;
  requiresApproval?: boolean;
  kind: "method" | "snippet";
  score: number;
};

type SearchOutput = {
  results: SearchResult[];
  total: number;
  truncated: boolean;
};

type DescribeOutput = {
  path: string;
  description?: string;
  requiresApproval?: boolean;
  types: string;
  kind: "connector" | "method" | "snippet";
};

interface CodeModeConsole {
  debug(...values: unknown[]): void;
  error(...values: unknown[]): void;
  info(...values: unknown[]): void;
  log(...values: unknown[]): void;
  warn(...values: unknown[]): void;
}

interface CodeModeResult {
  appendImage(image: {
    readonly data: string;
    readonly mimeType: string;
  }): void;
  appendText(text: string): void;
}

type ProgramContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly data: string; readonly mimeType: string };

/** A tool call's input broke the tool's input schema (the tool did not run), or its output broke its output schema: one "JSON-pointer: message" line per failure. */
declare class ToolValidationError extends Error {}

/** An MCP server's tool reported an error; the message is its text. */
declare class MCPToolError extends Error {}

/** An HTTP API answered with a status outside 2xx: status is the HTTP status code, method and path the request's, body the start of the response body. */
declare class HTTPError extends Error {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly body: string;
}

interface AgentProgramScope {
  readonly codemode: Tools;
  readonly console: CodeModeConsole;
  readonly result: CodeModeResult;
}

type AgentProgram = (scope: AgentProgramScope) => unknown;
